import { describe, expect, it } from 'vitest';
import { CANONICAL_NAMESPACES, decodeCharReferences, MalformedTitleError, parseTitle, prefixedText } from './title.js';

const reason = (text: string, site = {}): string | undefined => {
  try {
    parseTitle(text, 0, site);
  } catch (e) {
    if (e instanceof MalformedTitleError) return e.reason;
    throw e;
  }
  return undefined;
};
const norm = (text: string, site = {}): string => prefixedText(parseTitle(text, 0, site), site);

describe('parseTitle', () => {
  it('normalizes spaces, underscores, bidi marks, case of the first letter and namespace names', () => {
    expect(norm('foo_bar')).toBe('Foo bar');
    expect(norm('  foo \u00A0 bar__')).toBe('Foo bar');
    expect(norm('f\u200Eoo')).toBe('Foo');
    expect(norm('talk:foo')).toBe('Talk:Foo');
    expect(norm('image_talk : x')).toBe('File talk:X');
    expect(norm(':Help:x')).toBe('Help:X');
    expect(norm('Foo#Bar_baz')).toBe('Foo');
    expect(parseTitle('Foo#Bar_baz').fragment).toBe('Bar baz');
    expect(norm('ß')).toBe('ß');
    expect(norm('Unknown:x')).toBe('Unknown:x');
  });

  it('canonicalizes IP addresses in the User namespaces', () => {
    expect(norm('User:::1')).toBe('User:0:0:0:0:0:0:0:1');
    expect(norm('User talk:192.168.000.001')).toBe('User talk:192.168.0.1');
  });

  it('rejects what MediaWiki rejects', () => {
    expect(reason('')).toBe('title-invalid-empty');
    expect(reason('Talk:')).toBe('title-invalid-empty');
    expect(reason('<script>')).toBe('title-invalid-characters');
    expect(reason('a|b')).toBe('title-invalid-characters');
    expect(reason('a%20b')).toBe('title-invalid-characters');
    expect(reason('a&amp;b')).toBe('title-invalid-characters');
    expect(reason('a\u0001')).toBe('title-invalid-characters');
    expect(reason('../x')).toBe('title-invalid-relative');
    expect(reason('a/./b')).toBe('title-invalid-relative');
    expect(reason('a~~~b')).toBe('title-invalid-magic-tilde');
    expect(reason('Talk:File:x')).toBe('title-invalid-talk-namespace');
    expect(reason('::1')).toBe('title-invalid-leading-colon');
    expect(reason('a\uFFFD')).toBe('title-invalid-utf8');
    expect(reason('a\uD800')).toBe('title-invalid-utf8');
    expect(reason('x'.repeat(256))).toBe('title-invalid-too-long');
    expect(reason('é'.repeat(128))).toBe('title-invalid-too-long');
    expect(reason(`Special:${'x'.repeat(300)}`)).toBeUndefined();
  });

  it("uses the wiki's namespaces, interwiki prefixes and case rules when given", () => {
    const site = {
      namespaces: [
        ...CANONICAL_NAMESPACES,
        { id: 2, name: 'Benutzer', canonical: 'User' },
        { id: 100, name: 'Portal', case: 'case-sensitive' as const },
      ],
      interwikiPrefixes: ['EN'],
    };
    expect(norm('benutzer:x', site)).toBe('Benutzer:X');
    expect(norm('User:x', site)).toBe('Benutzer:X');
    expect(norm('portal:abc', site)).toBe('Portal:abc');
    expect(norm('en:foo', site)).toBe('en:foo');
    expect(reason('Talk:en:foo', site)).toBe('title-invalid-talk-namespace');
  });
});

describe('decodeCharReferences', () => {
  it('decodes numeric and basic named references, then applies NFC', () => {
    expect(decodeCharReferences('a&amp;b&#65;&#x42;&#X43;')).toBe('a&bABC');
    expect(decodeCharReferences('&#0;')).toBe('\uFFFD');
    expect(decodeCharReferences('&eacute;')).toBe('&eacute;');
    expect(decodeCharReferences('e\u0301')).toBe('é');
  });
});
