/**
 * Properties of the generated wiki modules and the request builder, for every module of the
 * catalogue (`sdk/src/generated/wiki/index.ts`), with parameters derived from each module's paraminfo:
 *
 * 1. Round trip: a valid typed parameter object builds without an error, and the request as sent,
 *    read back the way MediaWiki reads it (`validateParam` on the raw string at `prefix + name`),
 *    gives what reading the typed input directly gives — standalone and, for generator modules, as
 *    `generator=` with the `g` prefix, and composed by `query()` with one to three other modules.
 *    Timestamps compare as MediaWiki stores them (TS_MW, whole seconds): the builder drops
 *    sub-second precision, which MediaWiki's reading drops too. Booleans go by presence, multi values
 *    holding `|` use U+001F, nothing undeclared is sent, and GET/POST follows the encoded size.
 * 2. Robustness: any parameter object (any value of any type, undeclared keys) either builds or
 *    throws `WikiParamError`; what builds is all strings, and each parameter as sent is accepted by
 *    MediaWiki's reading and means what the typed input meant.
 * 3. The same for `query()` composing one to three modules in their groups (or as the generator),
 *    with arbitrary page-set, main-module and `continue` inputs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allpages, info } from '../../sdk/src/generated/wiki/index.js';
import { toRaw } from '../../sdk/src/wiki/full-path.js';
import { type BuiltQuery, POST_THRESHOLD_BYTES, type QueryInput, query } from '../../sdk/src/wiki/query.js';
import { type BuildOptions, type ParamInfo, WikiParamError } from '../../sdk/src/wiki/types.js';
import { toMwTimestamp, validateParam } from '../../sdk/src/wiki/validate/index.js';
import { cleanText } from '../../sdk/src/wiki/validate/text.js';
import {
  type AnyModule,
  anyParamsArb,
  anyValue,
  directRaw,
  expandedName,
  FIXED_NOW,
  MODULES,
  minimumBuilt,
  optionsArb,
  propertyRuns,
  templateTargetValues,
  validParamsArb,
} from './property-arbitraries.js';

const ROUND_TRIP_RUNS = propertyRuns(40);
const ROBUSTNESS_RUNS = propertyRuns(40);
const QUERY_RUNS = propertyRuns(400);

/** Warnings that valid input must never produce. */
const INVALID_INPUT_WARNINGS = new Set([
  'unrecognizedparams',
  'unrecognizedvalues',
  'outofrange',
  'ignoring-invalid-templated-value',
]);

const show = (v: unknown): string => {
  try {
    return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? `${x}n` : x)) ?? String(v);
  } catch {
    return String(v);
  }
};

const describeError = (e: unknown): string =>
  e instanceof WikiParamError
    ? `WikiParamError ${e.code} on ${e.param}: ${e.message}`
    : e instanceof Error
      ? (e.stack ?? e.message)
      : show(e);

/** A normalized value as MediaWiki keeps it: timestamps as TS_MW (whole seconds). */
function comparable(value: unknown, settings: ParamInfo): unknown {
  if (settings.type === 'timestamp' && typeof value === 'string') return toMwTimestamp(value);
  return value;
}

/** Each parameter the request may carry for a module: declared ones, and templated ones expanded over their targets' values. */
function moduleParams(
  mod: AnyModule,
  params: Record<string, unknown>,
  options: BuildOptions,
): { settings: ParamInfo; typed: unknown }[] {
  const spec = mod.spec;
  // A list for a single value is not read at all (ApiMain::getVal: `unsupportedarray`), so it is as if absent.
  const read = (settings: ParamInfo, typed: unknown) => (Array.isArray(typed) && !settings.multi ? undefined : typed);
  const out = spec.parameters.map((settings) => ({ settings, typed: read(settings, params[settings.name]) }));
  for (const tpl of spec.templatedparameters ?? []) {
    const given = params[tpl.name] as Record<string, unknown> | undefined;
    for (const value of templateTargetValues(spec, tpl, params, options)) {
      const name = expandedName(tpl, value);
      out.push({ settings: { ...tpl, name }, typed: read(tpl, given?.[value]) });
    }
  }
  return out;
}

/**
 * Property 1's checks for one module of a built request (`g` + its prefix as the generator): each
 * of its parameters reads back as the typed input reads. Returns the request keys it owns.
 */
function checkModuleRoundTrip(
  mod: AnyModule,
  params: Record<string, unknown>,
  options: BuildOptions,
  built: BuiltQuery,
  asGenerator: boolean,
): string[] {
  const spec = mod.spec;
  const prefix = asGenerator ? `g${spec.prefix}` : spec.prefix;
  const label = asGenerator ? `generator=${spec.name}` : `${spec.group}=${spec.name}`;
  if (asGenerator) expect(built.params.generator, label).toBe(spec.name);
  else expect(built.params[spec.group]?.split('|'), label).toContain(spec.name);

  const keys: string[] = [];
  for (const { settings, typed } of moduleParams(mod, params, options)) {
    const param = prefix + settings.name;
    keys.push(param);
    const wire = built.params[param];
    const where = `${label}: ${param} = ${show(typed)} sent as ${show(wire)}`;
    const ctx = { param, module: spec.path, options };
    let back: unknown;
    try {
      back = validateParam(settings, wire, ctx).value;
    } catch (e) {
      expect.fail(`${where} does not read back: ${describeError(e)}`);
    }
    const direct = validateParam(settings, directRaw(typed), ctx).value;
    expect(comparable(back, settings), where).toEqual(comparable(direct, settings));

    if (settings.type === 'boolean') {
      // Booleans go by presence: true is sent, false and absent are not.
      expect(wire, where).toBe(typed === true ? '1' : undefined);
    } else if (typed !== undefined) {
      expect(wire, `${where}: given but not sent`).toBeTypeOf('string');
    }
    if (settings.multi && Array.isArray(back) && back.some((v) => String(v).includes('|'))) {
      expect(wire?.startsWith('\u001f'), `${where}: a value holds "|", so U+001F separates`).toBe(true);
    }
    // Oracles that do not go through the validator: strings and enums come back as given.
    if (settings.type === 'string' || Array.isArray(settings.type)) {
      if (!settings.multi && typeof typed === 'string') expect(back, where).toBe(typed);
      // One empty value cannot be sent ('' is no value, '|' is two): MediaWiki's own limit.
      if (settings.multi && Array.isArray(typed) && !(typed.length === 1 && typed[0] === '')) {
        expect(back, where).toEqual(settings.allowsduplicates ? typed : [...new Set(typed)]);
      }
    }
  }
  return keys;
}

/** Property 1's checks on a whole request: each module's, no warning that only invalid input earns, nothing else sent. */
function checkRoundTrip(
  label: string,
  uses: readonly { mod: AnyModule; params: Record<string, unknown>; asGenerator: boolean }[],
  options: BuildOptions,
  built: BuiltQuery,
): void {
  const expectedKeys = new Set(['action', 'format', 'formatversion', 'errorformat']);
  for (const { mod, params, asGenerator } of uses) {
    expectedKeys.add(asGenerator ? 'generator' : mod.group);
    for (const key of checkModuleRoundTrip(mod, params, options, built, asGenerator)) expectedKeys.add(key);
  }
  for (const w of built.warnings) {
    expect(INVALID_INPUT_WARNINGS.has(w.code), `${label}: valid input warned ${w.code} on ${w.param}: ${show(w.data)}`).toBe(
      false,
    );
  }
  for (const key of Object.keys(built.params)) {
    expect(expectedKeys.has(key), `${label}: unexpected parameter ${key}=${show(built.params[key])}`).toBe(true);
  }
  expect(Object.fromEntries(built.toURLSearchParams()), `${label}: URLSearchParams`).toEqual({ ...built.params });
  const encoded = built.toURLSearchParams().toString();
  expect(built.toString(), `${label}: toString()`).toBe(encoded);
  expect(built.method, `${label}: ${encoded.length} bytes encoded`).toBe(encoded.length > POST_THRESHOLD_BYTES ? 'POST' : 'GET');
}

function buildOrFail(label: string, params: Record<string, unknown>, build: () => BuiltQuery): BuiltQuery {
  try {
    return build();
  } catch (e) {
    return expect.fail(`${label}: valid input ${show(params)} threw ${describeError(e)}`);
  }
}

const roundTripArb = (mod: AnyModule) =>
  fc
    .boolean()
    .chain((apihighlimits) => {
      const options: BuildOptions = { apihighlimits, now: () => FIXED_NOW, rules: false };
      return fc.tuple(fc.constant(options), validParamsArb(mod.spec, options));
    })
    .map(([options, params]) => ({ options, params }));

/** One to three distinct modules in their groups, at most one of them as the generator, with valid parameters. */
const composedArb = fc
  .record({
    apihighlimits: fc.boolean(),
    mods: fc.uniqueArray(fc.constantFrom(...MODULES), { minLength: 1, maxLength: 3, selector: (m) => m.spec.name }),
    generator: fc.nat({ max: 5 }),
  })
  .chain(({ apihighlimits, mods, generator }) => {
    const options: BuildOptions = { apihighlimits, now: () => FIXED_NOW, rules: false };
    const genIndex = mods[generator]?.asGenerator ? generator : -1;
    return fc
      .tuple(
        ...mods.map((mod, i) =>
          // A generator supplies the other modules' pages (deletedrevs' mode 1).
          validParamsArb(mod.spec, options, { pages: genIndex !== -1 && i !== genIndex }).map((params) => ({
            mod,
            params,
            asGenerator: i === genIndex,
          })),
        ),
      )
      .map((uses) => ({ options, uses }));
  });

describe(`round trip: valid parameters of all ${MODULES.length} modules read back as given`, () => {
  it('covers the whole catalogue', () => {
    expect(MODULES.length).toBe(69);
  });

  for (const mod of MODULES) {
    it(`${mod.group}=${mod.spec.name}${mod.asGenerator ? ' (also as generator)' : ''}`, () => {
      fc.assert(
        fc.property(roundTripArb(mod), ({ options, params }) => {
          const built = buildOrFail(mod.spec.name, params, () => mod.build(params, options));
          checkRoundTrip(mod.spec.name, [{ mod, params, asGenerator: false }], options, built);
          const asGenerator = mod.asGenerator;
          if (asGenerator) {
            const label = `generator=${mod.spec.name}`;
            const gen = buildOrFail(label, params, () => query({ generator: asGenerator(params) }, options));
            checkRoundTrip(label, [{ mod, params, asGenerator: true }], options, gen);
          }
        }),
        { numRuns: ROUND_TRIP_RUNS },
      );
    });
  }

  it('query() of one to three valid modules: each reads back as given', () => {
    let builds = 0;
    fc.assert(
      fc.property(composedArb, ({ options, uses }) => {
        const input: Record<string, unknown> = {};
        for (const { mod, params, asGenerator } of uses) {
          if (asGenerator && mod.asGenerator) input.generator = mod.asGenerator(params);
          else input[mod.group] = [...((input[mod.group] as unknown[] | undefined) ?? []), mod(params)];
        }
        const label = uses
          .map((u) => (u.asGenerator ? `generator=${u.mod.spec.name}` : `${u.mod.group}=${u.mod.spec.name}`))
          .join(' + ');
        // Two modules may only share a request key by declaring it both: then MediaWiki could not tell them apart.
        const seen = new Set<string>();
        let collides = false;
        for (const { mod, asGenerator } of uses) {
          const prefix = asGenerator ? `g${mod.spec.prefix}` : mod.spec.prefix;
          for (const key of [`prefix:${prefix}`, ...mod.spec.parameters.map((p) => prefix + p.name)]) {
            if (seen.has(key)) collides = true;
            seen.add(key);
          }
        }
        let built: BuiltQuery;
        try {
          built = query(input as QueryInput, options);
        } catch (e) {
          if (collides && e instanceof WikiParamError && e.code === 'prefixcollision') return;
          return expect.fail(`query(${label}): valid input ${show(uses.map((u) => u.params))} threw ${describeError(e)}`);
        }
        expect(collides, `query(${label}): modules that share a parameter name built`).toBe(false);
        checkRoundTrip(`query(${label})`, uses, options, built);
        builds++;
      }),
      { numRuns: QUERY_RUNS },
    );
    expect(builds, `of ${QUERY_RUNS} runs, how many built`).toBeGreaterThanOrEqual(minimumBuilt(QUERY_RUNS));
  });
});

/**
 * What a built request carries for one module: all strings, and each parameter as sent is read by
 * MediaWiki without an error, to the value the typed input meant.
 */
function checkAccepted(
  label: string,
  mod: AnyModule,
  params: Record<string, unknown>,
  options: BuildOptions,
  built: BuiltQuery,
  prefix: string,
  /** Request keys set by someone else (`continue`, the query's own parameters of the same name). */
  others: ReadonlySet<string> = new Set(),
) {
  for (const [k, v] of Object.entries(built.params)) expect(v, `${label}: ${k}`).toBeTypeOf('string');
  const readOptions: BuildOptions = { apihighlimits: Boolean(options.apihighlimits), now: () => FIXED_NOW };
  for (const settings of mod.spec.parameters) {
    const param = prefix + settings.name;
    if (others.has(param)) continue;
    const wire = built.params[param];
    // A list for a single value is not read at all (ApiMain::getVal: `unsupportedarray`): as if absent.
    const given = params[settings.name];
    const typed = Array.isArray(given) && !settings.multi ? undefined : given;
    const where = `${label}: ${param} = ${show(given)} sent as ${show(wire)}`;
    const ctx = { param, module: mod.spec.path, options: readOptions };
    let back: unknown;
    try {
      back = validateParam(settings, wire, ctx).value;
    } catch (e) {
      expect.fail(`${where} is rejected when read back: ${describeError(e)}`);
    }
    // What MediaWiki reads: the raw value cleaned (NFC, U+FFFD for forbidden characters; badutf8).
    const raw = toRaw(typed, param, mod.spec.path);
    const direct = validateParam(settings, raw === undefined ? raw : cleanText(raw), ctx).value;
    expect(comparable(back, settings), where).toEqual(comparable(direct, settings));
  }
}

describe('robustness: any parameters build or throw WikiParamError', () => {
  for (const mod of MODULES) {
    it(`${mod.group}=${mod.spec.name}`, () => {
      let builds = 0;
      fc.assert(
        fc.property(anyParamsArb(mod.spec), optionsArb, (params, options) => {
          let built: BuiltQuery;
          try {
            built = mod.build(params, options);
          } catch (e) {
            if (e instanceof WikiParamError) return;
            return expect.fail(`${mod.spec.name}: ${show(params)} threw ${describeError(e)}`);
          }
          checkAccepted(mod.spec.name, mod, params, options, built, mod.spec.prefix);
          builds++;
        }),
        { numRuns: ROBUSTNESS_RUNS },
      );
      // Otherwise the property proves nothing about what a built request carries.
      expect(builds, `of ${ROBUSTNESS_RUNS} runs, how many built`).toBeGreaterThanOrEqual(minimumBuilt(ROBUSTNESS_RUNS));
    });
  }
});

/** The query and main modules' inputs besides the modules. */
const TOP_LEVEL_KEYS = [
  'titles',
  'pageids',
  'revids',
  'redirects',
  'converttitles',
  'indexpageids',
  'export',
  'exportnowrap',
  'exportschema',
  'iwurl',
  'errorformat',
  'errorlang',
  'errorsuselocal',
  'uselang',
  'variant',
  'assert',
  'assertuser',
  'maxlag',
  'smaxage',
  'maxage',
  'requestid',
  'servedby',
  'curtimestamp',
  'responselanginfo',
  'origin',
  'crossorigin',
  'utf8',
  'ascii',
] as const;

const topLevelValue = fc.oneof(
  anyValue,
  fc.boolean(),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 4 }),
  fc.array(fc.nat(), { maxLength: 4 }),
  fc.constantFrom('plaintext', 'html', '0.11', 'user', 'en'),
);

const topLevelArb = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom(...TOP_LEVEL_KEYS), topLevelValue), { maxLength: 3 }),
    fc.option(fc.oneof(anyValue, fc.dictionary(fc.string({ maxLength: 4 }), anyValue, { maxKeys: 3 })), { nil: undefined }),
  )
  .map(([entries, cont]) => {
    const top: Record<string, unknown> = Object.fromEntries(entries);
    if (cont !== undefined) top.continue = cont;
    return top;
  });

interface Pick {
  mod: AnyModule;
  asGenerator: boolean;
  params: Record<string, unknown>;
}

const picksArb: fc.Arbitrary<Pick[]> = fc
  .array(fc.tuple(fc.constantFrom(...MODULES), fc.boolean()), { minLength: 1, maxLength: 3 })
  .chain((picks) =>
    fc.tuple(
      ...picks.map(([mod, asGenerator]) =>
        fc
          .oneof(anyParamsArb(mod.spec), validParamsArb(mod.spec, { apihighlimits: true }), fc.constant({}))
          .map((params): Pick => ({ mod, asGenerator, params })),
      ),
    ),
  );

describe('robustness: query() of one to three modules builds or throws WikiParamError', () => {
  it('never throws anything else', () => {
    let builds = 0;
    fc.assert(
      fc.property(picksArb, topLevelArb, optionsArb, (picks, top, options) => {
        const input: Record<string, unknown> = { ...top };
        const placed: { pick: Pick; prefix: string }[] = [];
        for (const pick of picks) {
          const { mod, params } = pick;
          if (pick.asGenerator && mod.asGenerator && input.generator === undefined) {
            input.generator = mod.asGenerator(params);
            placed.push({ pick, prefix: `g${mod.spec.prefix}` });
          } else {
            const group = (input[mod.group] as unknown[] | undefined) ?? [];
            group.push(mod(params));
            input[mod.group] = group;
            placed.push({ pick, prefix: mod.spec.prefix });
          }
        }
        const label = picks
          .map((p) => (p.asGenerator && p.mod.asGenerator ? `generator=${p.mod.spec.name}` : p.mod.spec.name))
          .join(' + ');
        let built: BuiltQuery;
        try {
          built = query(input as QueryInput, options);
        } catch (e) {
          if (e instanceof WikiParamError) return;
          return expect.fail(`query(${label}) with ${show(top)} threw ${describeError(e)}`);
        }
        const others = new Set([...built.continuation, ...Object.keys(top).filter((k) => top[k] !== undefined)]);
        for (const { pick, prefix } of placed) {
          checkAccepted(`query(${label})`, pick.mod, pick.params, options, built, prefix, others);
        }
        builds++;
      }),
      { numRuns: QUERY_RUNS },
    );
    expect(builds, `of ${QUERY_RUNS} runs, how many built`).toBeGreaterThanOrEqual(minimumBuilt(QUERY_RUNS));
  });
});

/** Counterexamples these properties found, kept as plain tests. */
describe('regressions found by the properties', () => {
  const linkcontext = info.spec.parameters.find((p) => p.name === 'linkcontext')!;

  it('a title without text (`#`) is sent as `#`, which MediaWiki reads as that title, not as `` (badtitle)', () => {
    for (const given of ['#', '#Section', ' #x']) {
      const wire = info.build({ linkcontext: given }).params.inlinkcontext;
      expect(wire).toBe('#');
      expect(validateParam(linkcontext, wire, { param: 'inlinkcontext' }).value).toBe('');
    }
  });

  it('a continue value that is neither a string nor a number is a WikiParamError, not a TypeError', () => {
    for (const value of [Object.create(null), {}, null, undefined, true, Symbol('s')]) {
      const input = { list: [allpages()], continue: { apcontinue: value } } as unknown as QueryInput;
      expect(() => query(input)).toThrow(WikiParamError);
    }
    expect(query({ list: [allpages()], continue: { apcontinue: 'B', sroffset: 10 } }).params).toMatchObject({
      apcontinue: 'B',
      sroffset: '10',
    });
  });
});
