import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SiteContext, TypeDef } from '../types.js';
import { WikiParamError } from '../types.js';
import { validateParam } from './registry.js';
import { nameOrTempUserDef, processUser } from './user.js';

const user = (value: string, subtypes?: string[], site?: SiteContext): string | undefined => {
  try {
    return validateParam({ name: 'user', type: 'user', subtypes }, value, { param: 'user', site }).value as string;
  } catch (e) {
    if (e instanceof WikiParamError && e.code === 'baduser') return undefined;
    throw e;
  }
};

describe('user', () => {
  it('normalizes names', () => {
    expect(user('adam_smith')).toBe('Adam smith');
    expect(user('User:foo_bar')).toBe('Foo bar');
    expect(user(' Emma\u200E ')).toBe('Emma');
  });

  it('classifies and canonicalizes IPs and ranges', () => {
    expect(processUser('::1')).toEqual(['ip', '0:0:0:0:0:0:0:1']);
    expect(processUser('192.168.000.001')).toEqual(['ip', '192.168.0.1']);
    expect(processUser('1.2.3.xxx')).toEqual(['ip', '1.2.3.xxx']);
    // UseMod's `x.x.x.xxx`: three IP bytes (a leading zero allowed), then `xxx` in lower case.
    expect(processUser('001.02.255.xxx')).toEqual(['ip', '001.02.255.xxx']);
    expect(processUser('256.1.1.xxx')).toBeUndefined();
    expect(processUser('1.2.3.XXX')).toEqual(['name-or-temp', '1.2.3.XXX']);
    expect(processUser('1.2.xxx')).toEqual(['name-or-temp', '1.2.xxx']);
    expect(processUser('2001:db8::/32')).toEqual(['cidr', '2001:DB8:0:0:0:0:0:0/32']);
    expect(processUser('m>Foo_bar')).toEqual(['interwiki', 'm>Foo_bar']);
    expect(processUser('#42')).toEqual(['id', '#42']);
  });

  it('rejects invalid names', () => {
    for (const bad of [
      '',
      '|',
      '300.300.300.300',
      'A/B',
      'Talk:Foo',
      '[[Foo]]',
      'Foo#bar',
      'm>Foo#bar',
      '1.2.3.xxx/8',
      'A\uE000',
    ]) {
      expect(user(bad), bad).toBeUndefined();
    }
    expect(user('x'.repeat(256))).toBeUndefined();
  });

  it('honours the allowed subtypes', () => {
    expect(user('#42')).toBeUndefined();
    expect(user('#42', ['id'])).toBe('#42');
    expect(user('1.2.3.4', ['name'])).toBeUndefined();
    expect(user('1.2.3.0/24', ['ip'])).toBeUndefined();
    expect(user('Foo', ['bogus'])).toBe('Foo');
  });

  it('tells temporary accounts apart only when it knows the patterns', () => {
    const site = { tempUserPatterns: ['~2$1'] };
    expect(user('~2024-1', ['temp'], site)).toBe('~2024-1');
    expect(user('~2024-1', ['name'], site)).toBeUndefined();
    expect(user('Foo', ['temp'], site)).toBeUndefined();
    // Unknown patterns: the server decides.
    expect(user('~2024-1', ['name'])).toBe('~2024-1');
    expect(user('~2024-1', ['temp'])).toBe('~2024-1');
  });

  it('needs the wiki to know interwiki prefixes', () => {
    expect(user('interwiki:Foo')).toBe('Interwiki:Foo');
    expect(user('interwiki:Foo', undefined, { interwikiPrefixes: ['interwiki'] })).toBeUndefined();
  });
});

describe('nameOrTempUserDef', () => {
  const settings = { name: 'assertuser', type: 'user', subtypes: ['name', 'temp'] } as const;
  const verdict = (def: TypeDef | undefined, value: string, site?: SiteContext): unknown => {
    try {
      const typeDefs = def ? { user: def } : undefined;
      return validateParam(settings, value, { param: 'assertuser', module: 'query', site, typeDefs });
    } catch (e) {
      if (!(e instanceof WikiParamError)) throw e;
      return { code: e.code, param: e.param, module: e.module, data: e.data, message: e.message, warnings: e.warnings };
    }
  };
  const sites: (SiteContext | undefined)[] = [
    undefined,
    { tempUserPatterns: ['~2$1'], interwikiPrefixes: ['m', 'interwiki'] },
    { namespaces: [{ id: 2, name: 'Benutzer', canonical: 'User' }] },
  ];
  const cases = [
    ...['', '#42', '#', 'm>Foo', 'Foo>', 'adam_smith', 'User:foo_bar', 'Talk:Foo', 'Benutzer:X', 'm:Foo', '~2024-1'],
    ...['::1', '1.2.3.4', '1.2.3.xxx', '2001:db8::/32', '1.2.3.0/24', '300.300.300.300', 'A/B', 'Foo#bar', 'x'.repeat(256)],
  ];

  it('gives what userDef gives with subtypes name and temp', () => {
    for (const site of sites)
      for (const value of cases) expect(verdict(nameOrTempUserDef, value, site), value).toEqual(verdict(undefined, value, site));
  });

  it('agrees with userDef on any string', () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({
        unit: fc.constantFrom('#', '>', ':', '/', '.', '_', ' ', '~', '1', '2', 'a', 'F', 'x', 'User', 'm', '\u200e', '\ue000'),
      }),
    );
    fc.assert(
      fc.property(text, fc.constantFrom(...sites), (value, site) => {
        expect(verdict(nameOrTempUserDef, value, site)).toEqual(verdict(undefined, value, site));
      }),
      { numRuns: 3000 },
    );
  });
});
