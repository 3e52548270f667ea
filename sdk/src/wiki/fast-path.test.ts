/**
 * The fast path on chosen inputs, one rule at a time: where it must answer (exactly what the full
 * validator sends, with no warning) and where it must leave the module to the full path. The
 * properties in `test/wiki/fast.test.ts` check agreement on random input; only these say that the
 * fast path answers when it should, which a fast path that always gave up would pass.
 */
import { describe, expect, it } from 'vitest';
import { fastModule, namespaceSet } from './fast-path.js';
import { encodeFormComponent } from './form.js';
import { buildModuleParams } from './full-path.js';
import type { SiteContext, TypeDef } from './types.js';
import { type ModuleSpec, type ParamInfo, WikiParamError } from './types.js';

const show = (v: unknown): string => JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x));

const mod = (parameters: ParamInfo[], extra: Partial<ModuleSpec> = {}): ModuleSpec => ({
  name: 'm',
  path: 'query+m',
  group: 'list',
  prefix: 'mm',
  generator: true,
  parameters,
  ...extra,
});
const one = (settings: Omit<ParamInfo, 'name'>, extra: Partial<ModuleSpec> = {}): ModuleSpec =>
  mod([{ name: 'p', ...settings } as ParamInfo], extra);

interface Run {
  generator?: boolean;
  apihighlimits?: boolean;
  site?: SiteContext;
}

/** The full path's answer: the params it sends, or its error code. */
function full(spec: ModuleSpec, input: Record<string, unknown>, run: Run = {}): [string, string][] | string {
  try {
    const built = buildModuleParams(spec, input, {
      prefix: run.generator ? `g${spec.prefix}` : spec.prefix,
      options: { apihighlimits: run.apihighlimits, site: run.site },
    });
    return built.warnings.length > 0 ? `warning ${built.warnings[0]!.code}` : Object.entries(built.params);
  } catch (e) {
    if (e instanceof WikiParamError) return e.code;
    throw e;
  }
}

/** The fast path answers with exactly `expected` (key, value pairs), which is also what the full path sends. */
function expectFast(spec: ModuleSpec, input: Record<string, unknown>, expected: [string, string][], run: Run = {}): void {
  const out = fastModule(spec, input, Boolean(run.generator), Boolean(run.apihighlimits), namespaceSet(run.site));
  expect(out, show(input)).toBeDefined();
  const pairs: [string, string][] = [];
  for (let i = 0; i < out!.length; i += 3) {
    pairs.push([out![i]!, out![i + 1]!]);
    expect(out![i + 2]).toBe(`&${encodeFormComponent(out![i]!)}=${encodeFormComponent(out![i + 1]!)}`);
  }
  expect(out!.length % 3).toBe(0);
  expect(pairs, show(input)).toEqual(expected);
  expect(full(spec, input, run), show(input)).toEqual(expected);
}

/** The fast path leaves it to the full path. */
function expectSlow(spec: ModuleSpec, input: Record<string, unknown>, run: Run = {}): void {
  expect(
    fastModule(spec, input, Boolean(run.generator), Boolean(run.apihighlimits), namespaceSet(run.site)),
    show(input),
  ).toBeUndefined();
}

describe('booleans', () => {
  it('send 1 when true, nothing when false; required or multi ones take the full path', () => {
    for (const type of ['boolean', 'checkbox'] as const) {
      expectFast(one({ type }), { p: true }, [['mmp', '1']]);
      expectFast(one({ type }), { p: false }, []);
      expectSlow(one({ type }), { p: 'yes' });
      expectSlow(one({ type }), { p: 1 });
    }
    expectSlow(one({ type: 'boolean', required: true }), { p: true });
    expectSlow(one({ type: 'boolean', multi: true }), { p: true });
  });
});

describe('strings', () => {
  it('are sent as they are, encoded, for every string type', () => {
    for (const type of ['string', 'text', 'raw', 'password'] as const) {
      expectFast(one({ type }), { p: 'a b&c=é|' }, [['mmp', 'a b&c=é|']]);
    }
    expectFast(one({ type: 'string' }), { p: '' }, [['mmp', '']]);
    expectFast(one({ type: 'string' }), { p: 'Café\t\n\r' }, [['mmp', 'Café\t\n\r']]);
    expectFast(one({ type: 'string', required: true }), { p: 'x' }, [['mmp', 'x']]);
  });

  it('leave U+001F first, an empty required one, other JS types, and byte or character caps to the full path', () => {
    expectSlow(one({ type: 'string' }), { p: '\u001fa' });
    // Values MediaWiki cleans and warns badutf8 about: U+001F inside, not NFC, C0 controls, lone surrogates.
    for (const p of ['a\u001fb', 'Cafe\u0301', 'a\u0001b', 'a\ud800', 'a\udc00b', '\uffff']) {
      expectSlow(one({ type: 'string' }), { p });
      expectSlow(one({ type: 'string', multi: true }), { p: ['x', p] });
    }
    expectSlow(one({ type: 'string', required: true }), { p: '' });
    expectSlow(one({ type: 'string' }), { p: 1 });
    expectSlow(one({ type: 'string', maxbytes: 100 }), { p: 'a' });
    expectSlow(one({ type: 'string', maxchars: 100 }), { p: 'a' });
    expectSlow(one({ type: 'timestamp' }), { p: '2024-01-01T00:00:00Z' });
    expectSlow(one({ type: 'expiry' }), { p: 'infinite' });
  });

  it('in a multi value: joined with |, duplicates dropped unless allowed, an empty value alone sent as |', () => {
    const s = one({ type: 'string', multi: true });
    expectFast(s, { p: ['a', 'b c', 'a'] }, [['mmp', 'a|b c']]);
    expectFast(one({ type: 'string', multi: true, allowsduplicates: true }), { p: ['a', 'b', 'a'] }, [['mmp', 'a|b|a']]);
    expectFast(s, { p: [] }, [['mmp', '']]);
    expectFast(s, { p: [''] }, [['mmp', '|']]);
    expectFast(s, { p: ['', ''] }, [['mmp', '|']]);
    expectFast(one({ type: 'string', multi: true, allowsduplicates: true }), { p: ['', ''] }, [['mmp', '|']]);
    expectFast(s, { p: ['', 'a'] }, [['mmp', '|a']]);
    expectFast(s, { p: ['a', ''] }, [['mmp', 'a|']]);
    expectSlow(s, { p: ['a|b'] });
    expectSlow(s, { p: ['a\u001fb'] });
    expectSlow(s, { p: [1] });
    expectSlow(s, { p: 'a' });
    expectSlow(one({ type: 'string', multi: true, required: true }), { p: ['a', ''] });
    expectFast(one({ type: 'string', multi: true, required: true }), { p: ['a'] }, [['mmp', 'a']]);
  });

  it('in a multi value: up to the low cap (50 by default); [""] counts as two', () => {
    const capped = one({ type: 'string', multi: true, lowlimit: 2, highlimit: 4 });
    expectFast(capped, { p: ['a', 'b'] }, [['mmp', 'a|b']]);
    expectSlow(capped, { p: ['a', 'b', 'c'] });
    expectSlow(capped, { p: ['a', 'b', 'c'] }, { apihighlimits: true });
    expectFast(one({ type: 'string', multi: true, lowlimit: 2 }), { p: [''] }, [['mmp', '|']]);
    expectSlow(one({ type: 'string', multi: true, lowlimit: 1 }), { p: [''] });
    expectFast(one({ type: 'string', multi: true, lowlimit: 1 }), { p: ['a'] }, [['mmp', 'a']]);
    const fifty = Array.from({ length: 50 }, (_, i) => `v${i}`);
    expectFast(one({ type: 'string', multi: true }), { p: fifty }, [['mmp', fifty.join('|')]]);
    expectSlow(one({ type: 'string', multi: true }), { p: [...fifty, 'x'] });
  });

  it('leave caps that are not counts to the full path', () => {
    for (const bad of [2.5, -1, '2', Number.NaN]) {
      expectSlow(one({ type: 'string', multi: true, lowlimit: bad } as unknown as ParamInfo), { p: ['a'] });
      expectSlow(one({ type: 'string', multi: true, highlimit: bad } as unknown as ParamInfo), { p: ['a'] });
    }
    expectFast(one({ type: 'string', multi: true, lowlimit: 0, highlimit: 0 }), { p: [] }, [['mmp', '']]);
    // A single-valued parameter ignores them.
    expectFast(one({ type: 'string', lowlimit: 2.5 } as unknown as ParamInfo), { p: 'a' }, [['mmp', 'a']]);
  });
});

describe('enumerations', () => {
  it('send a listed value, encoded; not a deprecated, unlisted or non-string one', () => {
    const e = one({ type: ['a b', 'c', 'old'], deprecatedvalues: ['old'] });
    expectFast(e, { p: 'a b' }, [['mmp', 'a b']]);
    expectFast(e, { p: 'c' }, [['mmp', 'c']]);
    expectSlow(e, { p: 'old' });
    expectSlow(e, { p: 'd' });
    expectSlow(e, { p: 1 });
    expectSlow(e, { p: ['c'] });
    // A non-list deprecatedvalues deprecates nothing.
    expectFast(one({ type: ['a'], deprecatedvalues: 'a' } as unknown as ParamInfo), { p: 'a' }, [['mmp', 'a']]);
    // Values that are not strings, or start with U+001F, are never taken as they are.
    const odd = one({ type: ['1', 1, '\u001fx', 'x|y'] as unknown as ParamInfo['type'] });
    expectFast(odd, { p: '1' }, [['mmp', '1']]);
    expectSlow(odd, { p: 1 });
    expectSlow(odd, { p: '\u001fx' });
    expectFast(odd, { p: 'x|y' }, [['mmp', 'x|y']]);
  });

  it('in a multi value: listed values joined, deduplicated; no value with | or U+001F', () => {
    const e = one({ type: ['a', 'b', 'c|d', 'e\u001f', 'old'], multi: true, deprecatedvalues: ['old'] });
    expectFast(e, { p: ['b', 'a', 'b'] }, [['mmp', 'b|a']]);
    expectFast(one({ type: ['a', 'b'], multi: true, allowsduplicates: true }), { p: ['b', 'b'] }, [['mmp', 'b|b']]);
    for (const bad of ['c|d', 'e\u001f', 'old', 'z', 1]) expectSlow(e, { p: ['a', bad] });
    expectSlow(e, { p: 'a' });
  });

  it('in a multi value: the all-specifier alone, as given, when it is a plain string', () => {
    const e = one({ type: ['a', 'b', '*'], multi: true, allspecifier: '*' });
    expectFast(e, { p: '*' }, [['mmp', '*']]);
    expectSlow(e, { p: ['*'] });
    expectSlow(e, { p: 'all' });
    expectFast(one({ type: ['a', 'b'], multi: true, allspecifier: 'all things' }), { p: 'all things' }, [['mmp', 'all things']]);
    expectFast(one({ type: ['a', 'b'], multi: true, allspecifier: 'all' }), { p: ['a'] }, [['mmp', 'a']]);
    for (const all of ['', 'a|b', '\u001fall']) {
      expectSlow(one({ type: ['a', 'b'], multi: true, allspecifier: all }), { p: all });
    }
    expectSlow(one({ type: ['a', 'b'], multi: true, allspecifier: true } as unknown as ParamInfo), { p: '*' });
    // Single-valued: no all-specifier.
    expectSlow(one({ type: ['a', 'b'], allspecifier: '*' }), { p: '*' });
  });
});

describe('integers and limits', () => {
  it('send safe integers within min … max (… highmax with apihighlimits)', () => {
    const i = one({ type: 'integer', min: -5, max: 10, highmax: 20 });
    expectFast(i, { p: -5 }, [['mmp', '-5']]);
    expectFast(i, { p: 10 }, [['mmp', '10']]);
    expectSlow(i, { p: -6 });
    expectSlow(i, { p: 11 });
    expectFast(i, { p: 20 }, [['mmp', '20']], { apihighlimits: true });
    expectSlow(i, { p: 21 }, { apihighlimits: true });
    expectSlow(i, { p: 1.5 });
    expectSlow(i, { p: '5' });
    expectSlow(i, { p: 5n });
    expectSlow(i, { p: Number.NaN });
    expectSlow(i, { p: 'max' });
    const free = one({ type: 'integer' });
    expectFast(free, { p: -(2 ** 53) + 1 }, [['mmp', String(-(2 ** 53) + 1)]]);
    expectFast(free, { p: 2 ** 53 - 1 }, [['mmp', String(2 ** 53 - 1)]]);
    expectSlow(free, { p: 2 ** 53 });
    expectSlow(free, { p: Number.POSITIVE_INFINITY });
  });

  it('read bounds given as strings; a highmax below max is max', () => {
    const s = one({ type: 'integer', min: '1', max: '3' } as unknown as ParamInfo);
    expectFast(s, { p: 3 }, [['mmp', '3']]);
    expectSlow(s, { p: 4 });
    expectSlow(s, { p: 0 });
    const low = one({ type: 'integer', max: 10, highmax: 5 });
    expectFast(low, { p: 10 }, [['mmp', '10']], { apihighlimits: true });
    expectSlow(low, { p: 11 }, { apihighlimits: true });
    const noMax = one({ type: 'integer', highmax: 5 });
    expectFast(noMax, { p: 1000 }, [['mmp', '1000']], { apihighlimits: true });
  });

  it('in a multi value: every one in range, joined', () => {
    const i = one({ type: 'integer', multi: true, min: 0, max: 9 });
    expectFast(i, { p: [3, 1, 3, 9] }, [['mmp', '3|1|9']]);
    expectFast(one({ type: 'integer', multi: true, allowsduplicates: true }), { p: [1, 1] }, [['mmp', '1|1']]);
    expectSlow(i, { p: [1, 10] });
    expectSlow(i, { p: [1, '2'] });
    expectSlow(i, { p: 1 });
  });

  it('limits: min 0 by default, max as its number per apihighlimits; not multi', () => {
    const l = one({ type: 'limit', max: 50, highmax: 500 });
    expectFast(l, { p: 0 }, [['mmp', '0']]);
    expectSlow(l, { p: -1 });
    expectFast(l, { p: 50 }, [['mmp', '50']]);
    expectSlow(l, { p: 51 });
    expectFast(l, { p: 500 }, [['mmp', '500']], { apihighlimits: true });
    expectFast(l, { p: 'max' }, [['mmp', '50']]);
    expectFast(l, { p: 'max' }, [['mmp', '500']], { apihighlimits: true });
    expectSlow(l, { p: 'MAX' });
    expectFast(one({ type: 'limit', min: 1, max: 5 }), { p: 1 }, [['mmp', '1']]);
    expectSlow(one({ type: 'limit', min: 1, max: 5 }), { p: 0 });
    expectFast(one({ type: 'limit' }), { p: 'max' }, [['mmp', '9223372036854775807']]);
    expectSlow(one({ type: 'limit', multi: true, max: 5 }), { p: [1] });
  });
});

describe('namespaces', () => {
  const site: SiteContext = {
    namespaces: [
      { id: -1, name: 'Special' },
      { id: 0, name: '' },
      { id: 4, name: 'Project' },
    ],
  };

  it('without the wiki’s namespaces: 0 up to 2^31 − 1, or an extra one', () => {
    const n = one({ type: 'namespace', extranamespaces: [-1, 'x'] } as unknown as ParamInfo);
    expectFast(n, { p: 0 }, [['mmp', '0']]);
    expectFast(n, { p: 2 ** 31 - 1 }, [['mmp', String(2 ** 31 - 1)]]);
    expectSlow(n, { p: 2 ** 31 });
    expectFast(n, { p: -1 }, [['mmp', '-1']]);
    expectSlow(n, { p: -2 });
    expectSlow(n, { p: 'x' });
    expectSlow(n, { p: '0' });
    expectSlow(n, { p: 1.5 });
    expectSlow(one({ type: 'namespace', extranamespaces: 'x' } as unknown as ParamInfo), { p: -1 });
  });

  it('with them: one of those from 0 up, or an extra one', () => {
    const n = one({ type: 'namespace', extranamespaces: [-2] });
    expectFast(n, { p: 4 }, [['mmp', '4']], { site });
    expectSlow(n, { p: 1 }, { site });
    expectSlow(n, { p: -1 }, { site });
    expectFast(n, { p: -2 }, [['mmp', '-2']], { site });
    // A site that lists no namespaces is a wiki whose namespaces are unknown.
    expectFast(n, { p: 1 }, [['mmp', '1']], { site: {} });
  });

  it('in a multi value: joined, * as it is', () => {
    const n = one({ type: 'namespace', multi: true });
    expectFast(n, { p: [4, 0, 4] }, [['mmp', '4|0']]);
    expectFast(n, { p: [4, 0, 4] }, [['mmp', '4|0']], { site });
    expectSlow(n, { p: [4, 1] }, { site });
    expectSlow(n, { p: [-1] });
    expectFast(n, { p: '*' }, [['mmp', '*']]);
    expectSlow(n, { p: 'all' });
    expectSlow(n, { p: 4 });
  });

  it('namespaceSet: the ids from 0 up, once per site, none for an unknown site', () => {
    expect(namespaceSet(undefined)).toBeUndefined();
    expect(namespaceSet({})).toBeUndefined();
    const set = namespaceSet(site);
    expect([...set!].sort()).toEqual([0, 4]);
    expect(namespaceSet(site)).toBe(set);
    expect(namespaceSet({ ...site })).not.toBe(set);
  });
});

describe('parameters and keys', () => {
  it('send keys with the module’s prefix, or g + prefix as a generator, encoded', () => {
    const spec = mod([{ name: 'a b', type: 'string' }], { prefix: 'x&' });
    expectFast(spec, { 'a b': 'v' }, [['x&a b', 'v']]);
    expectFast(spec, { 'a b': 'v' }, [['gx&a b', 'v']], { generator: true });
    const out = fastModule(spec, { 'a b': 'v' }, true, false)!;
    expect(out).toEqual(['gx&a b', 'v', '&gx%26a+b=v']);
  });

  it('leave deprecated parameters, and those with info conditions, to the full path; an empty info list is none', () => {
    expectSlow(one({ type: 'string', deprecated: true }), { p: 'a' });
    expectSlow(one({ type: 'string', info: [{ name: 'x' }] } as unknown as ParamInfo), { p: 'a' });
    expectFast(one({ type: 'string', info: [] } as unknown as ParamInfo), { p: 'a' }, [['mmp', 'a']]);
  });

  it('leave a type the descriptor gives its own validator for to the full path, enums too', () => {
    const strict: TypeDef = { validate: () => ({ value: 7n }) } as unknown as TypeDef;
    const given = { integer: 1, limit: 1, namespace: 1, string: '1', boolean: true };
    for (const [type, p] of Object.entries(given)) {
      expectFast(one({ type }), { p }, [['mmp', '1']]);
      expectSlow(one({ type }, { types: { [type]: strict } }), { p });
    }
    expectFast(one({ type: ['a', 'b'] }), { p: 'a' }, [['mmp', 'a']]);
    expectSlow(one({ type: ['a', 'b'] }, { types: { enum: strict } }), { p: 'a' });
    expectFast(one({ type: 'integer' }, { types: { timestamp: strict } }), { p: 1 }, [['mmp', '1']]);
  });

  it('send parameters in the module’s order, whatever the order given', () => {
    const spec = mod([
      { name: 'a', type: 'string' },
      { name: 'b', type: 'integer' },
      { name: 'c', type: 'boolean' },
    ]);
    const sent: [string, string][] = [
      ['mma', 'x'],
      ['mmb', '1'],
      ['mmc', '1'],
    ];
    expectFast(spec, { a: 'x', b: 1, c: true }, sent);
    expectFast(spec, { c: true, b: 1, a: 'x' }, sent);
    expectFast(spec, { b: 1, c: true, a: 'x' }, sent);
    expectFast(spec, { c: true, a: 'x' }, [sent[0]!, sent[2]!]);
    // Absent, undefined and null are not sent.
    expectFast(spec, { c: undefined, b: null, a: 'x' }, [sent[0]!]);
    expectFast(spec, { b: 1, a: undefined, c: null }, [sent[1]!]);
    // Out of order, anything the full path must decide still leaves.
    expectSlow(spec, { b: 1, a: 2 });
    expectSlow(spec, { b: 1, a: 'x', nosuch: 1 });
    expectSlow(spec, { c: true, nosuch: undefined, a: 'x', z: 1 });
    expectFast(spec, { c: true, nosuch: undefined, a: 'x' }, [sent[0]!, sent[2]!]);
    const slowLast = mod([
      { name: 'a', type: 'string' },
      { name: 't', type: 'timestamp' },
    ]);
    expectSlow(slowLast, { t: '2024-01-01T00:00:00Z', a: 'x' });
    expectSlow(slowLast, { a: 'x', t: '2024-01-01T00:00:00Z' });
    expectFast(slowLast, { t: null, a: 'x' }, [['mma', 'x']]);
    expectFast(slowLast, { a: 'x', t: undefined }, [['mma', 'x']]);
  });

  it('need every required parameter given, in order or not', () => {
    const spec = mod([
      { name: 'a', type: 'string', required: true },
      { name: 'b', type: 'integer' },
      { name: 'c', type: 'string', required: true },
    ]);
    expectFast(spec, { a: 'x', c: 'y' }, [
      ['mma', 'x'],
      ['mmc', 'y'],
    ]);
    expectFast(spec, { c: 'y', b: 2, a: 'x' }, [
      ['mma', 'x'],
      ['mmb', '2'],
      ['mmc', 'y'],
    ]);
    expectSlow(spec, { a: 'x' });
    expectSlow(spec, { b: 2, a: 'x' });
    expectSlow(spec, { c: 'y', a: null });
    expectSlow(spec, { c: 'y', b: 2 });
    expect(full(spec, { c: 'y', b: 2 })).toBe('missingparam');
  });

  it('leave keys an object would reorder or inherit to the full path, and take the others', () => {
    for (const name of ['0', '7', '4294967294', 'toString', '__proto__', 'hasOwnProperty']) {
      expectSlow(mod([{ name, type: 'string' }], { prefix: '' }), { [name]: 'x' });
    }
    for (const name of ['4294967295', '01', '-1', '1.5', 'x7']) {
      expectFast(mod([{ name, type: 'string' }], { prefix: '' }), { [name]: 'x' }, [[name, 'x']]);
    }
    // Even as a generator (g7 would be kept in place): the input object holds the name itself.
    expectSlow(mod([{ name: '7', type: 'string' }], { prefix: '' }), { 7: 'x' }, { generator: true });
  });

  it('leave modules with two parameters of one name to the full path', () => {
    const twice = mod([
      { name: 'a', type: 'string' },
      { name: 'a', type: 'integer' },
    ]);
    expectSlow(twice, { a: 'x' });
    const templatedTwice = mod([{ name: 'a', type: 'string' }], {
      templatedparameters: [{ name: 'a', type: 'string', templatevars: {} }],
    });
    expectSlow(templatedTwice, { a: 'x' });
  });
});

describe('modules as a whole', () => {
  it('defaults: silent ones keep the fast path; one that warns, or a timestamp default, leaves it', () => {
    const silent = mod([
      { name: 'a', type: 'string' },
      { name: 'b', type: ['x', 'y'], default: 'x' },
      { name: 'c', type: 'integer', default: 5, max: 10 },
      { name: 'd', type: 'string', required: true, default: 'z' },
      { name: 'e', type: 'limit', default: 10, max: 50, highmax: 500 },
    ]);
    expectFast(silent, { a: 'v', d: 'w' }, [
      ['mma', 'v'],
      ['mmd', 'w'],
    ]);
    expectFast(silent, { d: 'w' }, [['mmd', 'w']], { apihighlimits: true });
    const warns = mod([
      { name: 'a', type: 'string' },
      { name: 'c', type: 'integer', default: 50, max: 10 },
    ]);
    expectSlow(warns, { a: 'v' });
    // A default over max but within highmax warns only without apihighlimits.
    const high = mod([
      { name: 'a', type: 'string' },
      { name: 'l', type: 'limit', default: 100, max: 50, highmax: 500 },
    ]);
    expectSlow(high, { a: 'v' });
    expectFast(high, { a: 'v' }, [['mma', 'v']], { apihighlimits: true });
    const deprecatedDefault = mod([
      { name: 'a', type: 'string' },
      { name: 'b', type: ['x', 'y'], default: 'y', deprecatedvalues: ['y'] },
    ]);
    expectFast(deprecatedDefault, { a: 'v' }, [['mma', 'v']]);
    const stamped = mod([
      { name: 'a', type: 'string' },
      { name: 't', type: 'timestamp', default: '2024-01-01T00:00:00Z' },
    ]);
    expectSlow(stamped, { a: 'v' });
  });

  it('templated parameters: fast when every expansion is read as absent and silent', () => {
    const over = (target: ParamInfo, templated: Partial<ParamInfo> = {}): ModuleSpec =>
      mod([{ name: 'a', type: 'string' }, target], {
        templatedparameters: [{ name: 'v-{k}', type: 'integer', templatevars: { k: target.name }, ...templated } as ParamInfo],
      });
    expectFast(over({ name: 'k', type: ['x', 'y'], multi: true }), { a: 'v' }, [['mma', 'v']]);
    expectFast(over({ name: 'k', type: 'namespace', multi: true }), { a: 'v' }, [['mma', 'v']]);
    expectFast(over({ name: 'k', type: 'integer', multi: true }), { a: 'v' }, [['mma', 'v']]);
    expectSlow(over({ name: 'k', type: 'string', multi: true }), { a: 'v' });
    expectSlow(over({ name: 'k', type: ['x', '{y}'], multi: true }), { a: 'v' });
    expectSlow(over({ name: 'k', type: ['x', 'y}'], multi: true }), { a: 'v' });
    expectSlow(over({ name: 'k', type: ['x', 1] as unknown as ParamInfo['type'], multi: true }), { a: 'v' });
    expectSlow(over({ name: 'k', type: ['x'], multi: true }, { default: 1 }), { a: 'v' });
    expectSlow(over({ name: 'k', type: ['x'], multi: true }, { required: true }), { a: 'v' });
    // A target the module does not have.
    const orphan = mod([{ name: 'a', type: 'string' }], {
      templatedparameters: [{ name: 'v-{k}', type: 'integer', templatevars: { k: 'nosuch' } }],
    });
    expectSlow(orphan, { a: 'v' });
    // A target that is itself templated.
    const chained = mod([{ name: 'a', type: 'string' }], {
      templatedparameters: [
        { name: 'w-{k}', type: 'integer', templatevars: { k: 'v-{k}' } },
        { name: 'v-{k}', type: ['x'], multi: true, templatevars: { k: 'a' } },
      ],
    });
    expectSlow(chained, { a: 'v' });
    // No templatevars: nothing to expand.
    expectFast(over({ name: 'k', type: ['x'], multi: true }, { templatevars: undefined }), { a: 'v' }, [['mma', 'v']]);
    // The templated name itself, given, leaves.
    expectSlow(over({ name: 'k', type: ['x'], multi: true }), { 'v-{k}': { x: 1 } });
  });

  it('answer the same for a descriptor whatever was asked of it before', () => {
    const spec = mod([
      { name: 'a', type: 'string' },
      { name: 'l', type: 'limit', default: 100, max: 50, highmax: 500 },
    ]);
    expectFast(spec, { a: 'v' }, [['mma', 'v']], { apihighlimits: true });
    expectSlow(spec, { a: 'v' });
    expectFast(spec, { a: 'v' }, [['mma', 'v']], { apihighlimits: true });
    expectFast(spec, { l: 'max' }, [['mml', '500']], { apihighlimits: true });
  });
});

describe('the edges the first mutation run found untested', () => {
  it('a type the fast path does not know leaves, whatever the value (numbers too)', () => {
    expectSlow(one({ type: 'expiry' }), { p: [0] });
    expectSlow(one({ type: 'timestamp', multi: true }), { p: [0, 1] });
  });

  it('only enums and namespaces have an all-specifier: * is no integer', () => {
    expectSlow(one({ type: 'integer', multi: true }), { p: '*' });
    expect(full(one({ type: 'integer', multi: true }), { p: '*' })).toBe('badinteger');
  });

  it('a leading empty value counts as two only when alone', () => {
    const capped = one({ type: 'string', multi: true, lowlimit: 2 });
    expectSlow(capped, { p: ['', 'a', 'b'] });
    expectFast(capped, { p: ['', 'a'] }, [['mmp', '|a']]);
  });

  it('with apihighlimits too: duplicate names and defaults that warn leave', () => {
    const twice = mod([
      { name: 'a', type: 'string' },
      { name: 'a', type: 'integer' },
    ]);
    expectSlow(twice, { a: 'x' }, { apihighlimits: true });
    const warns = mod([
      { name: 'a', type: 'string' },
      { name: 'c', type: 'integer', default: 50, max: 10 },
    ]);
    expectSlow(warns, { a: 'v' }, { apihighlimits: true });
  });

  it('out of order: null reads as absent, and a parameter for the full path still leaves', () => {
    const spec = mod([
      { name: 'a', type: 'string' },
      { name: 'b', type: 'integer' },
      { name: 'c', type: 'boolean' },
      { name: 'd', type: 'integer', multi: true, deprecated: true },
    ]);
    expectFast(spec, { c: true, a: 'x', b: null }, [
      ['mma', 'x'],
      ['mmc', '1'],
    ]);
    expectSlow(spec, { d: [1], a: 'x' });
    expectSlow(spec, { a: 'x', d: [1] });
    // Out of order first, then the deprecated one: the collecting pass must leave too.
    expectSlow(spec, { c: true, a: 'x', d: [1] });
  });
});
