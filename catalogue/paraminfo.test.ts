/**
 * The catalogue against its schema, real paraminfo against the same schema, and the catalogue against the
 * seed spec. The fidelity half parses the seed markdown itself and never imports `transcribe.ts`, so a
 * slip in the transcription tables shows up here rather than being checked against itself.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const catalogueDir = path.join(repoRoot, 'catalogue');
const seedPath = path.resolve(repoRoot, 'test/fixtures/wiki/wiki-query-catalogue.md');
const capturePaths = ['paraminfo-mw1.46-query-subset.json', 'paraminfo-mw1.46-main-json.json'].map((f) =>
  path.resolve(repoRoot, 'test/fixtures/wiki', f),
);

type Json = Record<string, unknown>;
interface Param extends Json {
  index: number;
  name: string;
  type: string | string[];
  templatevars?: Record<string, string>;
}
interface Module extends Json {
  name: string;
  path: string;
  group: string;
  prefix: string;
  parameters: Param[];
  templatedparameters: Param[];
  helpurls: string[];
}
interface Doc {
  paraminfo: { helpformat: string; modules: Module[] };
}

const readJson = <T>(file: string): T => JSON.parse(readFileSync(file, 'utf8')) as T;
const catalogue = readJson<Doc>(path.join(catalogueDir, 'paraminfo.json'));
const schema = readJson<Json>(path.join(catalogueDir, 'paraminfo.schema.json'));
const clone = <T>(v: T): T => structuredClone(v);

function moduleOf(doc: Doc, name: string): Module {
  const m = doc.paraminfo.modules.find((x) => x.name === name);
  if (!m) throw new Error(`no module ${name}`);
  return m;
}
function paramOf(m: Module, name: string): Param {
  const p = m.parameters.find((x) => x.name === name);
  if (!p) throw new Error(`no parameter ${m.name}.${name}`);
  return p;
}

// ---------------------------------------------------------------------------------------------------------
// (a) schema
// ---------------------------------------------------------------------------------------------------------

describe('paraminfo.schema.json', () => {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true }); // if/then adds required keys declared elsewhere;
  const validate = ajv.compile(schema);
  const errorsOf = (doc: unknown) => (validate(doc) ? [] : (validate.errors ?? []));

  it('accepts catalogue/paraminfo.json', () => {
    expect(errorsOf(catalogue)).toEqual([]);
  });

  for (const file of capturePaths) {
    // In the repository: a missing capture fails here rather than skipping.
    it(`accepts the real capture ${path.basename(file)}`, () => {
      expect(errorsOf(readJson(file))).toEqual([]);
    });
  }

  const broken: [string, (d: Doc) => void][] = [
    ['a module without a name', (d) => delete (d.paraminfo.modules[0] as Partial<Module>).name],
    ['a numeric parameter type', (d) => Object.assign(d.paraminfo.modules[0]!.parameters[0]!, { type: 5 })],
    ['a formatversion=1 marker ("")', (d) => Object.assign(d.paraminfo.modules[0]!, { readrights: '' })],
    ['`required` as a string', (d) => Object.assign(d.paraminfo.modules[0]!.parameters[0]!, { required: '' })],
    ['a parameter without `multi`', (d) => delete (d.paraminfo.modules[0]!.parameters[0] as Partial<Param>).multi],
    ['index 0', (d) => Object.assign(d.paraminfo.modules[0]!.parameters[0]!, { index: 0 })],
    ['a multi parameter without lowlimit', (d) => delete paramOf(moduleOf(d, 'allcategories'), 'prop').lowlimit],
    [
      'a single-valued parameter with allspecifier',
      (d) => Object.assign(paramOf(moduleOf(d, 'allcategories'), 'dir'), { allspecifier: '*' }),
    ],
    ['a limit without max', (d) => delete paramOf(moduleOf(d, 'allcategories'), 'limit').max],
    ['a limit with a string default', (d) => Object.assign(paramOf(moduleOf(d, 'allcategories'), 'limit'), { default: '10' })],
    [
      'extranamespaces of strings',
      (d) => Object.assign(paramOf(moduleOf(d, 'alllinks'), 'namespace'), { extranamespaces: ['-2'] }),
    ],
    ['a templated parameter without templatevars', (d) => delete moduleOf(d, 'revisions').templatedparameters[0]!.templatevars],
    ['a query module in an unknown group', (d) => Object.assign(d.paraminfo.modules[0]!, { group: 'action' })],
    ['info without a name', (d) => Object.assign(paramOf(moduleOf(d, 'deletedrevs'), 'start'), { info: [{ values: [1] }] })],
    ['no modules array', (d) => Object.assign(d.paraminfo, { modules: {} })],
  ];
  for (const [what, breakIt] of broken) {
    it(`rejects ${what}`, () => {
      const doc = clone(catalogue);
      breakIt(doc);
      expect(errorsOf(doc)).not.toEqual([]);
    });
  }
});

describe('catalogue structure', () => {
  it('numbers each module’s parameters and templated parameters 1..n, without gaps or repeats', () => {
    for (const m of catalogue.paraminfo.modules) {
      const indexes = [...m.parameters, ...m.templatedparameters].map((p) => p.index).sort((a, b) => a - b);
      expect(indexes, m.name).toEqual(indexes.map((_, i) => i + 1));
      const plain = m.parameters.map((p) => p.index);
      expect(plain, `${m.name}: parameters in index order`).toEqual([...plain].sort((a, b) => a - b));
    }
  });

  it('writes every parameter the way formatversion=2 does: required and multi always present', () => {
    for (const m of catalogue.paraminfo.modules) {
      for (const p of [...m.parameters, ...m.templatedparameters]) {
        expect(typeof p.required, `${m.name}.${p.name}`).toBe('boolean');
        expect(typeof p.multi, `${m.name}.${p.name}`).toBe('boolean');
        if (p.type === 'boolean') expect(p, `${m.name}.${p.name}: booleans carry no default`).not.toHaveProperty('default');
      }
    }
  });

  it('is deterministic output: 2-space JSON with a trailing newline', () => {
    const text = readFileSync(path.join(catalogueDir, 'paraminfo.json'), 'utf8');
    expect(text).toBe(`${JSON.stringify(catalogue, null, 2)}\n`);
  });
});

// ---------------------------------------------------------------------------------------------------------
// (b) fidelity to the seed, parsed here independently of transcribe.ts
// ---------------------------------------------------------------------------------------------------------

type Info = { name: string; values?: number[] };
interface SeedParam {
  name: string;
  type: string | string[];
  /** The shared list the enum came from, if any. */
  list?: string;
  multi: boolean;
  required: boolean;
  deprecated: boolean;
  sensitive: boolean;
  allowsduplicates: boolean;
  default?: string | number;
  allspecifier?: string;
  extranamespaces?: number[];
  subtypes?: string[];
  deprecatedvalues?: string[];
  info?: Info[];
  min?: number;
  max?: number;
  highmax?: number;
}
interface SeedModule {
  n: number;
  name: string;
  group: string;
  prefix: string;
  markers: string[];
  params: SeedParam[];
  templated: { name: string; templatevars: Record<string, string>; type: string[] }[];
}
interface Seed {
  lists: Record<string, string[]>;
  revpropDefault: string;
  revpropDeprecated: string[];
  modules: SeedModule[];
  readrightsAbsent: string[];
  helpurlsEmpty: string[];
  oathLicence: string;
  defaultLicence: string;
  limitDefaults: { most: number; exceptions: Record<string, number | undefined> };
}

const SCALAR: Record<string, string> = {
  s: 'string',
  i: 'integer',
  b: 'boolean',
  ts: 'timestamp',
  lim: 'limit',
  title: 'title',
};
const NUMERIC = new Set(['integer', 'limit', 'namespace']);
const DEFAULT_SUBTYPES = ['name', 'ip', 'temp', 'interwiki', 'id'];
const WORDS: Record<string, number> = { fifteen: 15 };

const splitList = (s: string) => s.split(', ').map((v) => (v === '(empty)' ? '' : v.trim()));

function parseSeed(md: string): Seed {
  const lists: Record<string, string[]> = {};
  let revpropDefault = '';
  let revpropDeprecated: string[] = [];

  for (const [, key, body] of md.matchAll(/^- ([A-Z_]+) = (.+)$/gm)) {
    let text = body!.replace(/\.$/, '');
    if (key === 'REVPROP') {
      const m = /^(.*?)\.\s*Default: (\S+)$/.exec(text);
      if (!m) throw new Error('REVPROP line not understood');
      revpropDefault = m[2]!;
      text = m[1]!.replace(/\s*\(([\w, ]+?) (?:is|are) deprecated\)/, (_, names: string) => {
        revpropDeprecated = names.split(/, | and /);
        return '';
      });
    }
    const without = /^([A-Z_]+) without: (.+)$/.exec(text);
    if (without) {
      const drop = new Set(splitList(without[2]!));
      lists[key!] = lists[without[1]!]!.filter((v) => !drop.has(v));
    } else {
      lists[key!] = splitList(text);
    }
  }
  const rp =
    /^- REVPARAMS \(used by ([^)]+)\), in order: (.+?)\. Each of these \w+ modules also has the templated parameter `([^`]+)` whose variable `(\w+)` takes its values from `(\w+)`, with type \[([A-Z_]+)\]\.$/m.exec(
      md,
    );
  if (!rp) throw new Error('REVPARAMS line not understood');
  const revparams = {
    usedBy: rp[1]!.split(/, /),
    items: rp[2]!.split('; '),
    templated: { name: rp[3]!, variable: rp[4]!, from: rp[5]!, list: rp[6]! },
  };
  const la = /^\s+LOGACTIONS = (.+)\.$/m.exec(md);
  if (!la) throw new Error('LOGACTIONS line not understood');
  lists.LOGACTIONS = splitList(la[1]!);

  const parseItem = (raw: string): SeedParam => {
    let s = raw.trim();
    const p: SeedParam = {
      name: '',
      type: '',
      multi: false,
      required: false,
      deprecated: false,
      sensitive: false,
      allowsduplicates: false,
    };
    let noDefault = false;
    let defaultAll: number | undefined;
    let bounds: { min?: number; max?: number; highmax?: number } | undefined;
    const take = (re: RegExp, f: (...g: string[]) => void) => {
      s = s.replace(re, (...args: unknown[]) => {
        f(...(args.slice(1, -2) as string[]));
        return '';
      });
    };
    take(/\s*\((\w+(?: and \w+)*) (?:is a|are) deprecated values?\)/, (names) => {
      p.deprecatedvalues = names!.split(' and ');
    });
    take(/\s*\(min (\d+), max (\d+), highmax (\d+)\)/, (a, b, c) => {
      bounds = { min: Number(a), max: Number(b), highmax: Number(c) };
    });
    take(/, min (\d+), max (\d+) \(no highmax\)/, (a, b) => {
      bounds = { min: Number(a), max: Number(b) };
    });
    take(/, min (-?\d+)$/, (a) => {
      p.min = Number(a);
    });
    take(/\s*\(no default\)/, () => {
      noDefault = true;
    });
    take(/\s*\[(useronly|nonuseronly|singlepageonly|preloadcontentonly|editintroonly)\]/, (n) => {
      p.info = [{ name: n! }];
    });
    take(/\s*\[modes? ([\d,]+)\]/, (v) => {
      p.info = [{ name: 'modes', values: v!.split(',').map(Number) }];
    });
    take(/\s+REQ$/, () => {
      p.required = true;
    });
    take(/\s+DEP$/, () => {
      p.deprecated = true;
    });
    take(/\s+sensitive$/, () => {
      p.sensitive = true;
    });
    take(/,? with `(\*)` for all$/, (a) => {
      p.allspecifier = a!;
    });
    take(/ with duplicates allowed$/, () => {
      p.allowsduplicates = true;
    });
    take(/ with subtypes? ([a-z, ]+)$/, (list) => {
      p.subtypes = list!.split(', ');
    });
    take(/ and also (-?\d+), (-?\d+)$/, (a, b) => {
      p.extranamespaces = [Number(a), Number(b)];
    });
    take(/, default is all (\w+) values$/, (w) => {
      defaultAll = WORDS[w!] ?? Number.NaN;
    });

    const m = /^([A-Za-z][A-Za-z0-9]*)\s*(M)?\s*(\[[^\]]*\]|\((?:s|i|b|ts|lim|title)\)|USER|NS\*|NSX|NS)?(?:=(.*))?$/.exec(s);
    if (!m) throw new Error(`seed item not understood: "${raw}" (left: "${s}")`);
    const [, name, multi, typeTok, def] = m;
    p.name = name!;
    p.multi = multi === 'M';
    if (!typeTok) {
      if (p.name !== 'limit') throw new Error(`no type in "${raw}"`);
      p.type = 'limit';
    } else if (typeTok.startsWith('[')) {
      const inner = typeTok.slice(1, -1);
      if (/^[A-Z_]+$/.test(inner)) {
        const values = lists[inner];
        if (!values) throw new Error(`unknown list ${inner}`);
        p.type = values;
        p.list = inner;
      } else {
        p.type = inner.split('|').map((v) => (v === '(empty)' ? '' : v));
      }
    } else if (typeTok.startsWith('(')) {
      p.type = SCALAR[typeTok.slice(1, -1)]!;
    } else if (typeTok === 'USER') {
      p.type = 'user';
      p.subtypes ??= DEFAULT_SUBTYPES;
    } else {
      p.type = 'namespace';
      if (typeTok === 'NS*') {
        p.multi = true;
        p.allspecifier = '*';
      }
      if (typeTok === 'NSX') p.extranamespaces = [-2, -1];
    }
    if (p.type === 'limit') {
      Object.assign(p, bounds ?? { min: 1, max: 500, highmax: 5000 });
      if (!noDefault && def === undefined) p.default = 10;
    }
    if (p.list === 'REVPROP') {
      p.default ??= revpropDefault;
      p.deprecatedvalues ??= revpropDeprecated;
    }
    if (def !== undefined) {
      const rawDefault = def === '(empty)' ? '' : def.replace(/^`(.*)`$/, '$1');
      p.default = NUMERIC.has(p.type as string) ? Number(rawDefault) : rawDefault;
    }
    if (defaultAll !== undefined) {
      if (!Array.isArray(p.type) || p.type.length !== defaultAll) throw new Error(`"all ${defaultAll}" does not match ${raw}`);
      p.default = p.type.join('|');
    }
    return p;
  };

  const revItems = revparams.items.map(parseItem);
  const cfValues = lists[revparams.templated.list]!;
  const revTemplated = [
    {
      name: revparams.templated.name,
      templatevars: { [revparams.templated.variable]: revparams.templated.from },
      type: cfValues,
    },
  ];

  const headerRe = /^(\d+)\. \*\*(\w+)\*\*: (list|prop|meta), (?:prefix `(\w*)`|(empty) prefix)((?:, [^,.]+)*)\. (.+)$/gm;
  const raw: { n: number; name: string; group: string; prefix: string; markers: string[]; body: string }[] = [];
  for (const [, n, name, group, prefix, , markers, body] of md.matchAll(headerRe)) {
    raw.push({
      n: Number(n),
      name: name!,
      group: group!,
      prefix: prefix ?? '',
      markers: markers!.split(', ').filter(Boolean),
      body: body!,
    });
  }
  const byName = new Map<string, SeedModule>();
  const modules: SeedModule[] = [];
  const pending: [SeedModule, string, string | undefined][] = [];
  for (const r of raw) {
    let body = r.body;
    let templated: SeedModule['templated'] = [];
    body = body.replace(/\. Templated parameter `([^`]+)` as in REVPARAMS\.$/, (_, name: string) => {
      if (name !== revparams.templated.name) throw new Error(`unexpected templated parameter ${name}`);
      templated = revTemplated;
      return '';
    });
    body = body.replace(/\.$/, '');
    const mod: SeedModule = { n: r.n, name: r.name, group: r.group, prefix: r.prefix, markers: r.markers, params: [], templated };
    const same = /^Same parameters as (\w+)(?:, except (.+))?$/.exec(body);
    if (same) {
      pending.push([mod, same[1]!, same[2]]);
    } else {
      const items = body.split('; ');
      if (items.includes('REVPARAMS')) {
        mod.templated = revTemplated;
        for (const it of items) mod.params.push(...(it === 'REVPARAMS' ? revItems : [parseItem(it)]));
      } else if (items.includes('the other REVPARAMS as listed')) {
        // The module restates some REVPARAMS entries (adding info); the rest come "as listed".
        const restated = new Map<string, SeedParam>();
        const after = items.indexOf('the other REVPARAMS as listed');
        for (const it of items.slice(0, after)) {
          const p = parseItem(it);
          restated.set(p.name, p);
        }
        for (const rev of revItems) {
          const own = restated.get(rev.name);
          if (own && JSON.stringify(own.type) !== JSON.stringify(rev.type))
            throw new Error(`${r.name}.${rev.name} differs from REVPARAMS`);
          mod.params.push(own?.info ? { ...rev, info: own.info } : rev);
        }
        for (const it of items.slice(after + 1)) mod.params.push(parseItem(it));
      } else {
        mod.params = items.map(parseItem);
      }
    }
    modules.push(mod);
    byName.set(mod.name, mod);
  }
  for (const [mod, target, except] of pending) {
    const base = byName.get(target);
    if (!base || base.params.length === 0) throw new Error(`"Same parameters as ${target}" unresolved`);
    const over = except ? parseItem(except) : undefined;
    mod.params = base.params.map((p) => (over && p.name === over.name ? over : p));
    mod.templated = base.templated;
  }
  const revUsers = new Set(revparams.usedBy);
  for (const m of modules) {
    if (revUsers.has(m.name) && m.templated.length === 0)
      throw new Error(`${m.name} should carry the REVPARAMS templated parameter`);
  }

  // Module-description table.
  const rr = /\| readrights \|[^|]*\| Present on most modules; absent on (.+?)\. \|/.exec(md);
  const hu = /\| helpurls \|[^|]*\|[^|]*; empty for (.+?)\. \|/.exec(md);
  const lt = /\| licensetag \|[^|]*\| Licence identifier: (\S+), except for `oath`: (.+?)\. \|/.exec(md);
  if (!rr || !hu || !lt) throw new Error('module description table not understood');
  const names = (s: string) => s.split(/, (?:and )?| and /);

  // Limits table: default `limit`.
  const ld = /\| Default `limit` \| (\d+) in most modules; (.+) \|/.exec(md);
  if (!ld) throw new Error('Limits table not understood');
  const exceptions: Record<string, number | undefined> = {};
  for (const part of ld[2]!.split('; ')) {
    const pm = /^(\d+|none) in (.+)$/.exec(part);
    if (!pm) throw new Error(`limit default "${part}" not understood`);
    for (const n of names(pm[2]!)) exceptions[n] = pm[1] === 'none' ? undefined : Number(pm[1]);
  }

  return {
    lists,
    revpropDefault,
    revpropDeprecated,
    modules,
    readrightsAbsent: names(rr[1]!),
    helpurlsEmpty: names(hu[1]!),
    defaultLicence: lt[1]!,
    oathLicence: lt[2]!,
    limitDefaults: { most: Number(ld[1]), exceptions },
  };
}

/** The parameter as paraminfo should describe it (without `index`). */
function expectedParam(p: SeedParam): Json {
  const out: Json = { name: p.name, type: p.type, required: p.required, multi: p.multi };
  if (p.deprecated) out.deprecated = true;
  if (p.sensitive) out.sensitive = true;
  if (p.default !== undefined) out.default = p.default;
  if (p.multi) Object.assign(out, { lowlimit: 50, highlimit: 500, limit: 50 });
  if (p.allowsduplicates) out.allowsduplicates = true;
  for (const k of ['allspecifier', 'min', 'max', 'highmax', 'extranamespaces', 'subtypes', 'deprecatedvalues', 'info'] as const) {
    if (p[k] !== undefined) out[k] = p[k];
  }
  return out;
}
const withoutIndex = ({ index: _index, ...rest }: Param): Json => rest;

const SOURCE_OF: Record<string, string> = { 'translation extension': 'Translate', 'two-factor extension': 'OATHAuth' };

const CATEGORIES = ['modules', 'markers', 'parameters', 'lists', 'limits', 'required', 'deprecated'] as const;
type Problems = Record<(typeof CATEGORIES)[number], string[]>;

/** Every way the catalogue departs from the seed, by category. */
function fidelityProblems(doc: Doc, seed: Seed): Problems {
  const out: Problems = {
    modules: [],
    markers: [],
    parameters: [],
    lists: [],
    limits: [],
    required: [],
    deprecated: [],
  };
  const mods = doc.paraminfo.modules;
  if (mods.length !== seed.modules.length) out.modules.push(`${mods.length} modules, seed has ${seed.modules.length}`);
  seed.modules.forEach((sm, i) => {
    const m = mods[i];
    if (!m || m.name !== sm.name) {
      out.modules.push(`position ${i + 1}: ${m?.name} instead of ${sm.name}`);
      return;
    }
    const tag = `${sm.n}. ${sm.name}`;
    if (m.path !== `query+${sm.name}`) out.modules.push(`${tag}: path ${m.path}`);
    if (m.group !== sm.group) out.modules.push(`${tag}: group ${m.group}, seed ${sm.group}`);
    if (m.prefix !== sm.prefix) out.modules.push(`${tag}: prefix "${m.prefix}", seed "${sm.prefix}"`);

    const mark = (key: string, want: boolean) => {
      if ((m[key] === true) !== want) out.markers.push(`${tag}: ${key} ${want ? 'missing' : 'unexpected'}`);
      if (key in m && m[key] !== true) out.markers.push(`${tag}: ${key} is ${JSON.stringify(m[key])}, not true`);
    };
    mark('generator', sm.markers.includes('G'));
    mark('deprecated', sm.markers.includes('module is deprecated'));
    mark('internal', sm.markers.includes('internal'));
    mark('readrights', !seed.readrightsAbsent.includes(sm.name));
    const ext = sm.markers.find((x) => x in SOURCE_OF);
    const source = ext ? SOURCE_OF[ext] : 'MediaWiki';
    if (m.source !== source || m.sourcename !== source)
      out.markers.push(`${tag}: source ${m.source}/${m.sourcename}, want ${source}`);
    const licence = sm.name === 'oath' ? seed.oathLicence : seed.defaultLicence;
    if (m.licensetag !== licence) out.markers.push(`${tag}: licensetag ${m.licensetag}`);
    const unknown = sm.markers.filter((x) => !['G', 'module is deprecated', 'internal'].includes(x) && !(x in SOURCE_OF));
    if (unknown.length) out.markers.push(`${tag}: seed marker(s) not understood: ${unknown.join(', ')}`);
    const helpEmpty = seed.helpurlsEmpty.includes(sm.name);
    if ((m.helpurls.length === 0) !== helpEmpty) out.markers.push(`${tag}: helpurls ${JSON.stringify(m.helpurls)}`);

    const gotNames = m.parameters.map((p) => p.name).join(', ');
    const wantNames = sm.params.map((p) => p.name).join(', ');
    if (gotNames !== wantNames) out.parameters.push(`${tag}: parameters [${gotNames}], seed [${wantNames}]`);
    for (const sp of sm.params) {
      const p = m.parameters.find((x) => x.name === sp.name);
      if (!p) continue;
      const ptag = `${tag}.${sp.name}`;
      const want = expectedParam(sp);
      if (JSON.stringify(sortKeys(withoutIndex(p))) !== JSON.stringify(sortKeys(want))) {
        out.parameters.push(`${ptag}: ${JSON.stringify(withoutIndex(p))} != seed ${JSON.stringify(want)}`);
      }
      if (sp.list && JSON.stringify(p.type) !== JSON.stringify(seed.lists[sp.list]))
        out.lists.push(`${ptag}: not the ${sp.list} list`);
      if (p.required !== sp.required) out.required.push(`${ptag}: required ${p.required}, seed ${sp.required ? 'REQ' : '-'}`);
      if ((p.deprecated === true) !== sp.deprecated)
        out.deprecated.push(`${ptag}: deprecated ${p.deprecated}, seed ${sp.deprecated}`);
      if (JSON.stringify(p.deprecatedvalues) !== JSON.stringify(sp.deprecatedvalues)) {
        out.deprecated.push(
          `${ptag}: deprecatedvalues ${JSON.stringify(p.deprecatedvalues)}, seed ${JSON.stringify(sp.deprecatedvalues)}`,
        );
      }
      if (sp.name === 'limit') {
        const want = sm.name in seed.limitDefaults.exceptions ? seed.limitDefaults.exceptions[sm.name] : seed.limitDefaults.most;
        if (p.default !== want) out.limits.push(`${ptag}: default ${p.default}, Limits table says ${want}`);
        if (p.default !== sp.default) out.limits.push(`${ptag}: default ${p.default}, module line says ${sp.default}`);
        for (const k of ['min', 'max', 'highmax'] as const) {
          if (p[k] !== sp[k]) out.limits.push(`${ptag}: ${k} ${p[k]}, seed ${sp[k]}`);
        }
      }
    }
    const gotT = m.templatedparameters.map(({ index: _i, required: _r, multi: _m, ...rest }) => rest);
    if (JSON.stringify(gotT) !== JSON.stringify(sm.templated)) {
      out.parameters.push(`${tag}: templatedparameters ${JSON.stringify(gotT)}, seed ${JSON.stringify(sm.templated)}`);
    }
    for (const t of m.templatedparameters) {
      const from = Object.values(t.templatevars ?? {})[0];
      const source = m.parameters.find((p) => p.name === from);
      if (!source || t.index !== source.index + 1)
        out.parameters.push(`${tag}: ${t.name} should be numbered right after ${from}`);
    }
  });
  return out;
}
function sortKeys(o: Json): Json {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}

// In the repository (test/fixtures/wiki): a missing seed throws here and fails the suite.
const seedText = readFileSync(seedPath, 'utf8');

describe('fidelity to the seed catalogue', () => {
  const seed = parseSeed(seedText);
  const problems = fidelityProblems(catalogue, seed);
  const countBy = (xs: { group: string }[]) =>
    xs.reduce<Record<string, number>>((acc, x) => Object.assign(acc, { [x.group]: (acc[x.group] ?? 0) + 1 }), {});

  it('has the 69 modules, in the seed’s order, with the seed’s counts per group', () => {
    expect(seed.modules.map((m) => m.n)).toEqual(seed.modules.map((_, i) => i + 1));
    expect(seed.modules).toHaveLength(69);
    expect(catalogue.paraminfo.modules.map((m) => m.name)).toEqual(seed.modules.map((m) => m.name));
    expect(countBy(catalogue.paraminfo.modules)).toEqual(countBy(seed.modules));
    expect(countBy(seed.modules)).toEqual({ list: 36, prop: 20, meta: 13 });
  });
  it('has every module’s path, group and prefix', () => expect(problems.modules).toEqual([]));
  it('has every module marker (G, deprecated, internal, readrights, source, licence, helpurls)', () =>
    expect(problems.markers).toEqual([]));
  it('parses every shared value list from the seed', () => {
    for (const key of ['GROUPS', 'REVPROP', 'CF', 'PROTO', 'RIGHTS_A', 'RIGHTS_B', 'LOGACTIONS']) {
      expect(seed.lists[key]?.length, key).toBeGreaterThan(0);
    }
    expect(seed.lists.PROTO).toContain('');
    expect(seed.revpropDeprecated).toEqual(['parsetree']);
    expect(seed.lists.RIGHTS_B!.length).toBe(seed.lists.RIGHTS_A!.length - 10);
  });
  it('expands every shared value list in place, and uses each list somewhere', () => {
    expect(problems.lists).toEqual([]);
    const used = new Set(seed.modules.flatMap((m) => m.params.map((p) => p.list)));
    for (const key of Object.keys(seed.lists)) expect(used.has(key) || key === 'CF', key).toBe(true);
    for (const m of catalogue.paraminfo.modules) {
      for (const t of m.templatedparameters) expect(t.type, `${m.name}.${t.name}`).toEqual(seed.lists.CF);
    }
  });
  it('has every limit default and bound, including the exceptions', () => {
    expect(problems.limits).toEqual([]);
    expect(seed.limitDefaults.exceptions).toEqual({
      imageinfo: 1,
      random: 1,
      messagecollection: 500,
      alldeletedrevisions: undefined,
      allrevisions: undefined,
      deletedrevisions: undefined,
      revisions: undefined,
    });
    const limits = seed.modules.filter((m) => m.params.some((p) => p.name === 'limit'));
    expect(limits.length).toBeGreaterThan(40);
  });
  it('marks required exactly where the seed writes REQ', () => {
    expect(problems.required).toEqual([]);
    const req = seed.modules.flatMap((m) => m.params.filter((p) => p.required).map((p) => `${m.name}.${p.name}`));
    expect(req.length).toBe((seedText.match(/ REQ(?=[;.])/g) ?? []).length);
  });
  it('marks every DEP parameter and every deprecated value', () => {
    expect(problems.deprecated).toEqual([]);
    // Count the DEP tokens again by line: each module line once, the REVPARAMS line once per module using it.
    const deps = (line: string) => (line.match(/ DEP(?=[;.])/g) ?? []).length;
    const lines = seedText.split('\n');
    const moduleDeps = lines.filter((l) => /^\d+\. \*\*/.test(l)).reduce((n, l) => n + deps(l), 0);
    const revLine = lines.find((l) => l.startsWith('- REVPARAMS '))!;
    const revUsers = /used by ([^)]+)\)/.exec(revLine)![1]!.split(', ').length;
    const dep = seed.modules.flatMap((m) => m.params.filter((p) => p.deprecated));
    expect(dep.length).toBe(moduleDeps + deps(revLine) * revUsers);
  });
  it('describes every parameter as the seed does (type, default, multi, limits, subtypes, info, …)', () => {
    expect(problems.parameters).toEqual([]);
  });

  // The checks above must be able to fail: break copies of the catalogue and watch them notice.
  const mutations: [string, keyof Problems, (d: Doc) => void][] = [
    ['a changed prefix', 'modules', (d) => Object.assign(moduleOf(d, 'allpages'), { prefix: 'xx' })],
    ['a dropped generator marker', 'markers', (d) => delete moduleOf(d, 'random').generator],
    ['a dropped internal marker', 'markers', (d) => delete moduleOf(d, 'oath').internal],
    ['a changed limit default', 'limits', (d) => Object.assign(paramOf(moduleOf(d, 'imageinfo'), 'limit'), { default: 10 })],
    [
      'a REVPARAMS limit given a default',
      'limits',
      (d) => Object.assign(paramOf(moduleOf(d, 'revisions'), 'limit'), { default: 10 }),
    ],
    ['a dropped REQ', 'required', (d) => Object.assign(paramOf(moduleOf(d, 'querypage'), 'page'), { required: false })],
    ['a dropped DEP', 'deprecated', (d) => delete paramOf(moduleOf(d, 'random'), 'redirect').deprecated],
    ['dropped deprecated values', 'deprecated', (d) => delete paramOf(moduleOf(d, 'search'), 'prop').deprecatedvalues],
    ['a shared list missing a value', 'lists', (d) => (paramOf(moduleOf(d, 'allusers'), 'rights').type as string[]).pop()],
    ['a changed enum default', 'parameters', (d) => Object.assign(paramOf(moduleOf(d, 'blocks'), 'prop'), { default: 'id' })],
    [
      'a changed subtype list',
      'parameters',
      (d) => Object.assign(paramOf(moduleOf(d, 'watchlist'), 'owner'), { subtypes: ['name', 'ip'] }),
    ],
  ];
  for (const [what, category, breakIt] of mutations) {
    it(`notices ${what}`, () => {
      const doc = clone(catalogue);
      breakIt(doc);
      expect(fidelityProblems(doc, seed)[category].length).toBeGreaterThan(problems[category].length);
    });
  }
});
