import { describe, expect, it } from 'vitest';
import { storableText, truncateBytes, wikitextToPlain } from './plain-text.js';

describe('wikitextToPlain', () => {
  it('keeps prose and link labels, drops templates, references, files, categories and markup', () => {
    const wikitext = [
      '{{Infobox|name={{nested|x}}}}',
      '== Rollout ==',
      "The '''canary''' goes to [[Staging|the staging ring]] first, then [[Production]].<ref>Runbook</ref>",
      '[[File:Ring.png|thumb|A ring]] See [https://example.org the guide].',
      '* Roll back within 15 minutes.',
      '[[Category:Deploys]]',
    ].join('\n');
    expect(wikitextToPlain(wikitext)).toBe(
      'Rollout\nThe canary goes to the staging ring first, then Production.\nSee the guide.\nRoll back within 15 minutes.',
    );
  });
});

describe('truncateBytes', () => {
  it('cuts at a character boundary', () => {
    expect(truncateBytes('abc', 10)).toBe('abc');
    expect(truncateBytes('aé', 2)).toBe('a');
    expect(truncateBytes('a😀b', 4)).toBe('a');
    expect(Buffer.byteLength(truncateBytes('é'.repeat(100), 51))).toBe(50);
  });
});

describe('storableText', () => {
  it('drops NUL and makes lone surrogates U+FFFD, as UTF-8 would store them; well-formed text is unchanged', () => {
    expect(storableText('a\u0000b')).toBe('ab');
    expect(storableText('x\ud800y\udc00')).toBe('x\ufffdy\ufffd');
    const text = 'Déploiements 🚀 le mardi\n\ttab';
    expect(storableText(text)).toBe(text);
    // What the store reads back is what was hashed and given: the UTF-8 round trip changes nothing.
    const stored = storableText('q\ud83d\u0000');
    expect(Buffer.from(stored, 'utf8').toString('utf8')).toBe(stored);
  });
});
