import { describe, expect, it } from 'vitest';
import { truncateBytes, wikitextToPlain } from './plain-text.js';

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
