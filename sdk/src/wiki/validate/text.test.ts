import { describe, expect, it } from 'vitest';
import { cleanText } from './text.js';

describe('cleanText (WebRequest::normalizeUnicode)', () => {
  it('gives back the same string when nothing changes: ASCII, tab, LF, CR, NFC text', () => {
    for (const s of ['', 'Apple pie', 'a\tb\nc\r', 'Café', 'Ünï', '日本語', '😀']) expect(cleanText(s)).toBe(s);
  });

  it('NFC-normalizes, and replaces C0 controls (but HT, LF, CR), U+FFFE/U+FFFF and lone surrogates with U+FFFD', () => {
    expect(cleanText('Cafe\u0301')).toBe('Café');
    expect(cleanText('a\u0001b')).toBe('a\uFFFDb');
    expect(cleanText('a\u0000\u000b\u000c\u001f')).toBe('a\uFFFD\uFFFD\uFFFD\uFFFD');
    expect(cleanText('a\ud800')).toBe('a\uFFFD');
    expect(cleanText('\udc00a')).toBe('\uFFFDa');
    expect(cleanText('\uffff')).toBe('\uFFFD');
  });

  it('cleans a U+001F-separated multi value piece by piece, keeping the separators', () => {
    expect(cleanText('\u001fa|b\u001fCafe\u0301')).toBe('\u001fa|b\u001fCafé');
    expect(cleanText('\u001fa\u001fb')).toBe('\u001fa\u001fb');
    // Not first: an ordinary control character.
    expect(cleanText('a\u001fb')).toBe('a\uFFFDb');
  });
});
