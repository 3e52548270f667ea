/**
 * Positive properties of the wiki validator: for every parameter of every catalogue module, a value
 * that is valid by the parameter's own descriptor (type, bounds, enum values, multi caps, all-specifier,
 * templated expansion) is accepted — standalone and as a generator — and sent exactly as MediaWiki
 * expects to receive it. The expected request value is worked out here from the descriptor alone
 * (decimal integers, `1` for true, `|` or the U+001F form for multi values, `max` resolved, ISO 8601
 * timestamps in whole seconds, canonical user names and titles), never through the validator, so a
 * validator that wrongly rejects or re-encodes valid input fails here.
 *
 * The robustness properties ("anything else is a WikiParamError") stay in `property.test.ts`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type BuiltQuery, query } from '../../sdk/src/wiki/query.js';
import type { BuildOptions, ModuleSpec, ParamInfo } from '../../sdk/src/wiki/types.js';
import { validateParam } from '../../sdk/src/wiki/validate/index.js';
import { type AnyModule, FIXED_NOW, MODULES, propertyRuns } from './property-arbitraries.js';

const RUNS_PER_MODULE = propertyRuns(60);
const RUNS_PER_PARAMETER = propertyRuns(6);

/** A valid typed value and what must be sent for it (`undefined`: nothing), and read back where it is simple. */
interface Case {
  typed: unknown;
  wire: string | undefined;
  /** What MediaWiki reads from `wire`, where the oracle is simple (not timestamps, users, titles). */
  read?: unknown;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const enumValues = (p: ParamInfo): string[] => {
  const deprecated = new Set(Array.isArray(p.deprecatedvalues) ? p.deprecatedvalues.map(String) : []);
  return (p.type as string[]).filter((v) => !deprecated.has(v));
};

/** Printable text without `|`, control characters or anything Unicode normalization would change. */
const plainChar = fc.oneof(
  {
    weight: 9,
    arbitrary: fc
      .integer({ min: 0x20, max: 0x7e })
      .filter((c) => c !== 0x7c)
      .map((c) => String.fromCharCode(c)),
  },
  { weight: 1, arbitrary: fc.constantFrom('é', 'ß', 'Ж', '日', '😀') },
);
const plainString = fc.string({ unit: plainChar, minLength: 1, maxLength: 12 });

/** The multi-value form MediaWiki reads: `a|b`, or U+001F before and between when a value holds `|`. */
function multiWire(values: readonly string[]): string {
  return values.some((v) => v.includes('|')) ? `\u001f${values.join('\u001f')}` : values.join('|');
}

/** Up to the parameter's cap of values (its low limit, or high limit with apihighlimits). */
function cap(p: ParamInfo, high: boolean): number {
  const low = num(p.lowlimit) ?? 50;
  return high ? Math.max(low, num(p.highlimit) ?? 500) : low;
}

function integerBounds(p: ParamInfo, high: boolean): { min: number; max: number } {
  const max = high ? (num(p.highmax) ?? num(p.max)) : num(p.max);
  return { min: num(p.min) ?? -(2 ** 31), max: max ?? 2 ** 31 - 1 };
}

/** `ASCII lower_case name` → `ASCII lower case name` with its first letter upper-cased: MediaWiki's canonical form. */
const canonical = (s: string) => (s.charAt(0).toUpperCase() + s.slice(1)).replaceAll('_', ' ');
const nameArb = fc
  .tuple(
    fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCXYZ'),
    fc.array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789'), { minLength: 1, maxLength: 8 }),
    fc.option(fc.array(fc.constantFrom(...'abcdefxyz'), { minLength: 1, maxLength: 5 }), { nil: undefined }),
    fc.boolean(),
  )
  .map(([first, rest, second, underscore]) => {
    const given = first + rest.join('') + (second ? (underscore ? '_' : ' ') + second.join('') : '');
    return { given, sent: canonical(given) };
  });
const ipv4Arb = fc
  .tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255))
  .map((b) => b.join('.'))
  .map((ip) => ({ given: ip, sent: ip }));

function userCase(p: ParamInfo): fc.Arbitrary<{ given: string; sent: string }> {
  const subtypes = Array.isArray(p.subtypes) ? p.subtypes : ['name', 'ip'];
  const forms: fc.Arbitrary<{ given: string; sent: string }>[] = [];
  if (subtypes.includes('name')) forms.push(nameArb);
  if (subtypes.includes('ip')) forms.push(ipv4Arb);
  return fc.oneof(...forms);
}

const NAMESPACES: Record<string, string> = { '': '', talk: 'Talk:', user: 'User:', help_talk: 'Help talk:' };
const titleArb = fc
  .tuple(fc.constantFrom(...Object.keys(NAMESPACES)), nameArb)
  .map(([ns, name]) => ({ given: (ns === '' ? '' : `${ns}:`) + name.given, sent: NAMESPACES[ns] + name.sent }));

/** Instants within 1000–9999, as a Date or an ISO 8601 string. */
const timestampArb = fc
  .tuple(
    fc.integer({ min: Date.UTC(1000, 0, 1) / 1000, max: Date.UTC(9999, 11, 31, 23, 59, 59) / 1000 }),
    fc.nat(999),
    fc.constantFrom('date', 'iso', 'iso-seconds'),
  )
  .map(([seconds, ms, form]) => {
    const date = new Date(seconds * 1000 + ms);
    const whole = `${date.toISOString().slice(0, 19)}Z`;
    // A Date is sent in whole seconds (formatTimestamp). A string is read to its instant and sent in
    // ISO 8601, with milliseconds only when they are not zero: MediaWiki reads both forms.
    if (form === 'date') return { typed: date, sent: whole };
    const given = form === 'iso' ? date.toISOString() : whole;
    return { typed: given, sent: form === 'iso' && ms !== 0 ? date.toISOString() : whole };
  });

/** One valid scalar (one element of a multi value) with its sent form and the value read back. */
function scalarCase(p: ParamInfo, high: boolean): fc.Arbitrary<{ typed: unknown; sent: string; read?: unknown }> {
  if (Array.isArray(p.type)) return fc.constantFrom(...enumValues(p)).map((v) => ({ typed: v, sent: v, read: v }));
  switch (p.type) {
    case 'integer': {
      const { min, max } = integerBounds(p, high);
      return fc.integer({ min, max }).map((n) => ({ typed: n, sent: String(n), read: n }));
    }
    case 'limit': {
      const { min, max } = integerBounds({ ...p, min: num(p.min) ?? 0 }, high);
      return fc.oneof(
        fc.integer({ min, max }).map((n) => ({ typed: n as unknown, sent: String(n), read: n as unknown })),
        fc.constant({ typed: 'max', sent: String(max), read: max }),
      );
    }
    case 'namespace': {
      const extra = Array.isArray(p.extranamespaces) ? p.extranamespaces.map(Number) : [];
      return fc.constantFrom(0, 1, 2, 3, 4, 6, 10, 14, 15, ...extra).map((n) => ({ typed: n, sent: String(n), read: n }));
    }
    case 'timestamp':
      return timestampArb;
    case 'user':
      return userCase(p).map(({ given, sent }) => ({ typed: given, sent }));
    case 'title':
      return titleArb.map(({ given, sent }) => ({ typed: given, sent }));
    case 'string':
      return plainString.map((s) => ({ typed: s, sent: s, read: s }));
    default:
      throw new Error(`no valid-value oracle for type ${String(p.type)} (${p.name})`);
  }
}

/** A valid typed value of a parameter with what must be sent for it. */
function caseArb(p: ParamInfo, high: boolean): fc.Arbitrary<Case> {
  if (p.type === 'boolean') return fc.boolean().map((b) => ({ typed: b, wire: b ? '1' : undefined, read: b }));
  if (!p.multi || p.type === 'limit') return scalarCase(p, high).map(({ typed, sent, read }) => ({ typed, wire: sent, read }));
  const all = typeof p.allspecifier === 'string' ? p.allspecifier : p.type === 'namespace' ? '*' : undefined;
  // Strings may hold `|` in a multi value: then the U+001F form carries them.
  const element =
    p.type === 'string'
      ? fc.oneof(
          scalarCase(p, high),
          plainString.map((s) => ({ typed: `${s}|${s}`, sent: `${s}|${s}`, read: `${s}|${s}` })),
        )
      : scalarCase(p, high);
  const values = fc.array(element, { minLength: 1, maxLength: Math.min(cap(p, high), 12) }).map((list): Case => {
    // Duplicates go unless the parameter allows them; the first of each stays, in order.
    const kept = p.allowsduplicates ? list : list.filter((x, i) => list.findIndex((y) => y.sent === x.sent) === i);
    const reads = kept.map((x) => x.read);
    // One empty value alone is sent as `|` (two empty values, one after dedupe): `` would be none.
    const sent = kept.map((x) => x.sent);
    return {
      typed: list.map((x) => x.typed),
      wire: sent.length === 1 && sent[0] === '' && !p.allowsduplicates ? '|' : multiWire(sent),
      ...(reads.every((r) => r !== undefined) && { read: reads }),
    };
  });
  return all === undefined ? values : fc.oneof(values, fc.constant<Case>({ typed: all, wire: all }));
}

/** Valid values for the module's required parameters, fixed: they are not what is under test. */
function requiredParams(spec: ModuleSpec): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of spec.parameters) {
    if (!p.required) continue;
    out[p.name] = Array.isArray(p.type) ? enumValues(p)[0] : 'Required value';
  }
  return out;
}

/** What else the parameter needs to apply: a user for `useronly` and deletedrevs' user modes; no user otherwise. */
function contextFor(p: ParamInfo): Record<string, unknown> {
  for (const cond of p.info ?? []) {
    if (cond.name === 'useronly') return { user: 'Alice' };
    if (cond.name === 'modes' && !(cond.values ?? []).map(Number).includes(3)) return { user: 'Alice' };
  }
  return {};
}

/** A parameter whose valid use MediaWiki may still warn about (deprecated, or applicable only in some modes). */
const mayWarn = (p: ParamInfo) => Boolean(p.deprecated) || (p.info?.length ?? 0) > 0;

interface Pick {
  settings: ParamInfo;
  /** The typed input for the module. */
  params: Record<string, unknown>;
  /** Unprefixed request key → what must be sent. */
  expected: Record<string, string | undefined>;
  read?: unknown;
  options: BuildOptions;
}

/** Every parameter of the module, templated ones last. */
const allParams = (spec: ModuleSpec): ParamInfo[] => [...spec.parameters, ...(spec.templatedparameters ?? [])];

/** The parameter `settings` of the module (templated ones through a valid value of their target), valid, with its expected request value. */
function pickArb(mod: AnyModule, settings: ParamInfo): fc.Arbitrary<Pick> {
  const spec = mod.spec;
  const templated = spec.templatedparameters ?? [];
  return fc.boolean().chain((high) => {
    // Per-parameter validity: the modules' own rules on how parameters combine (catalogue/rules.json) are tested apart.
    const options: BuildOptions = { apihighlimits: high, now: () => FIXED_NOW, rules: false };
    const base = { ...requiredParams(spec), ...contextFor(settings) };
    if (!templated.includes(settings)) {
      return caseArb(settings, high).map(
        (c): Pick => ({
          settings,
          params: { ...base, [settings.name]: c.typed },
          expected: { [settings.name]: c.wire },
          read: c.read,
          options,
        }),
      );
    }
    // `contentformat-{slot}` over `slots`: one request key per target value, each its own valid value.
    const [variable, targetName] = Object.entries(settings.templatevars ?? {})[0]!;
    const target = spec.parameters.find((p) => p.name === targetName)!;
    return fc
      .uniqueArray(fc.constantFrom(...enumValues(target)), { minLength: 1, maxLength: 3 })
      .chain((keys) => fc.tuple(fc.constant(keys), fc.tuple(...keys.map(() => fc.constantFrom(...enumValues(settings))))))
      .map(
        ([keys, values]): Pick => ({
          settings,
          params: { ...base, [targetName]: keys, [settings.name]: Object.fromEntries(keys.map((k, i) => [k, values[i]])) },
          expected: {
            [targetName]: keys.join('|'),
            ...Object.fromEntries(keys.map((k, i) => [settings.name.replace(`{${variable}}`, k), values[i]])),
          },
          options,
        }),
      );
  });
}

function check(mod: AnyModule, pick: Pick, prefix: string, built: BuiltQuery) {
  const spec = mod.spec;
  const where = `${spec.name}.${pick.settings.name} = ${JSON.stringify(pick.params[pick.settings.name])}`;
  // What goes over the wire is the form-encoded string (the GET query or the POST body), which the
  // fast path writes itself: MediaWiki's PHP reads it as application/x-www-form-urlencoded, as
  // URLSearchParams does, and must get each parameter once, with exactly the expected value.
  const encoded = built.toString();
  const sent = new URLSearchParams(encoded);
  for (const [name, wire] of Object.entries(pick.expected)) {
    expect(built.params[prefix + name], `${where}: ${prefix + name}`).toBe(wire);
    expect(sent.getAll(prefix + name), `${where}: ${prefix + name} in ${encoded}`).toEqual(wire === undefined ? [] : [wire]);
  }
  expect(Object.fromEntries(sent), `${where}: ${encoded}`).toEqual(built.params);
  expect([...sent.keys()], `${where}: ${encoded}`).toHaveLength(Object.keys(built.params).length);
  // Nothing else of the module is sent but what was given.
  const given = new Set([
    ...Object.keys(pick.expected),
    ...Object.keys(requiredParams(spec)),
    ...Object.keys(contextFor(pick.settings)),
  ]);
  for (const key of Object.keys(built.params)) {
    if (!key.startsWith(prefix) || ['action', 'format', 'formatversion', 'errorformat', 'generator', mod.group].includes(key))
      continue;
    expect(given.has(key.slice(prefix.length)), `${where}: ${key} sent unasked`).toBe(true);
  }
  // A valid value of a parameter that is neither deprecated nor conditional earns no warning about it.
  if (!mayWarn(pick.settings)) {
    const own = Object.keys(pick.expected).map((n) => prefix + n);
    expect(
      built.warnings.filter((w) => own.includes(w.param)),
      where,
    ).toEqual([]);
  }
  // MediaWiki reads the sent value without an error, to the value meant.
  const [name, wire] = Object.entries(pick.expected).at(-1)!;
  const settings = { ...pick.settings, name };
  const read = validateParam(settings, wire, { param: prefix + name, module: spec.path, options: pick.options });
  if (pick.read !== undefined) expect(read.value, `${where}: read back`).toEqual(pick.read);
  if (!mayWarn(pick.settings)) expect(read.warnings, `${where}: read back`).toEqual([]);
}

describe('valid values of every parameter of every module are accepted and sent as MediaWiki expects', () => {
  it('covers all 69 modules and every parameter type in the catalogue', () => {
    expect(MODULES).toHaveLength(69);
    const types = new Set(
      MODULES.flatMap((m) => [...m.spec.parameters, ...(m.spec.templatedparameters ?? [])]).map((p) =>
        Array.isArray(p.type) ? 'enum' : String(p.type),
      ),
    );
    // Each has an oracle above; a new type in the catalogue needs one.
    expect([...types].sort()).toEqual([
      'boolean',
      'enum',
      'integer',
      'limit',
      'namespace',
      'string',
      'timestamp',
      'title',
      'user',
    ]);
  });

  for (const mod of MODULES) {
    it(`${mod.group}=${mod.spec.name}${mod.asGenerator ? ' (also as generator)' : ''}`, () => {
      // Each parameter in turn, so none is left to chance: at least RUNS_PER_PARAMETER values of each.
      const params = allParams(mod.spec);
      const numRuns = Math.max(RUNS_PER_PARAMETER, Math.ceil(RUNS_PER_MODULE / params.length));
      for (const settings of params) {
        fc.assert(
          fc.property(pickArb(mod, settings), (pick) => {
            check(mod, pick, mod.spec.prefix, mod.build(pick.params, pick.options));
            if (mod.asGenerator) {
              check(mod, pick, `g${mod.spec.prefix}`, query({ generator: mod.asGenerator(pick.params) }, pick.options));
            }
          }),
          { numRuns },
        );
      }
    });
  }
});
