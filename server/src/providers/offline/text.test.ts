import { describe, expect, it } from 'vitest';
import { seededRng } from './seeded-random.js';
import { keywords, phrase, prose, sentence, tokenize } from './text.js';

describe('tokenize', () => {
  it.each([
    'Hello, world!',
    '  leading and trailing  ',
    'Line one.\nLine two:\t"quoted" — dash; {"json": [1, 2.5]}',
    "Ünïcödé wörds and don't split contractions",
    '',
  ])('concatenates back to the text: %j', (text) => {
    expect(tokenize(text).join('')).toBe(text);
  });

  it('splits words and punctuation, each token keeping its leading space', () => {
    expect(tokenize('Ship it, now.')).toEqual(['Ship', ' it', ',', ' now', '.']);
  });
});

describe('keywords', () => {
  it('keeps distinctive words in order, drops stopwords and short words, dedupes', () => {
    expect(keywords('Should we migrate the monolith to microservices, given the monolith is old?')).toEqual([
      'migrate',
      'monolith',
      'microservices',
    ]);
  });

  it('stops at max', () => {
    expect(keywords('alpha bravo charlie delta echo foxtrot golf hotel', 3)).toEqual(['alpha', 'bravo', 'charlie']);
  });
});

describe('prose', () => {
  const words = ['caching', 'latency', 'consistency'];

  it('is determined by the random source and talks about the keywords', () => {
    const a = prose(seededRng('x'), words);
    expect(prose(seededRng('x'), words)).toBe(a);
    expect(prose(seededRng('y'), words)).not.toBe(a);
    expect(a).toMatch(/caching|latency|consistency/);
    expect(a.split(/(?<=[.?])\s/).length).toBeGreaterThanOrEqual(5);
  });

  it('still reads as sentences without keywords', () => {
    const text = prose(seededRng('empty'), []);
    expect(text).toContain('the question');
    expect(text).not.toMatch(/\{[abc]\}|undefined/);
  });

  it('sentence and phrase are short and filled', () => {
    const rng = seededRng('short');
    expect(sentence(rng, words)).toMatch(/^[A-Z].*[.?]$/);
    expect(phrase(rng, words)).toMatch(/^[A-Z][a-z]+ (caching|latency|consistency)( and (caching|latency|consistency))?$/);
  });
});
