import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { thrown } from '../../../test/wiki/fixtures/build.js';
import { allpages } from '../generated/wiki/allpages.js';
import { backlinks } from '../generated/wiki/backlinks.js';
import { categorymembers } from '../generated/wiki/categorymembers.js';
import * as generated from '../generated/wiki/index.js';
import { recentchanges } from '../generated/wiki/recentchanges.js';
import { usercontribs } from '../generated/wiki/usercontribs.js';
import { query } from './query.js';
import { applyRules, continueRule, isPlainTitle, type RuleTable, ruleApplier, rulesFor } from './rules.js';
import type { ModuleSpec } from './types.js';
import { WikiParamError } from './types.js';

const table = JSON.parse(readFileSync(new URL('../../../catalogue/rules.json', import.meta.url), 'utf8')) as RuleTable;

describe('catalogue/rules.json', () => {
  it('names the MediaWiki source of every rule, and every rule matches its catalogue module', () => {
    for (const [name, rules] of Object.entries(table.modules)) {
      for (const rule of rules) expect(rule.source, `${name}: ${rule.rule}`).toMatch(/^Api\w+(\.php |::)/);
    }
    expect(backlinks.spec.rules).toEqual(table.modules.backlinks);
    expect(recentchanges.spec.rules).toEqual(table.modules.recentchanges);
  });

  it('keeps only the rules whose parameters and values a module has (other wikis, other versions)', () => {
    const spec = {
      name: 'recentchanges',
      parameters: [
        { name: 'continue', type: 'string' },
        { name: 'show', type: ['minor', '!minor'] },
      ],
    };
    expect(rulesFor(spec, table).map((r) => r.rule)).toEqual(['continue', 'exclusive-values']);
    expect(rulesFor(spec, table)[1]).toMatchObject({ pairs: [['minor', '!minor']] });
    const noShow = { name: 'recentchanges', parameters: [{ name: 'show', type: ['minor'] }] };
    expect(rulesFor(noShow, table)).toEqual([]);
    expect(rulesFor({ name: 'nosuchmodule', parameters: [] }, table)).toEqual([]);
  });
});

describe('module rules in query()', () => {
  it('mutually exclusive show values: the module code `show`', () => {
    expect(thrown(() => recentchanges.build({ show: ['minor', '!minor'] }))).toMatchObject({ code: 'show', param: 'rcshow' });
    expect(thrown(() => recentchanges.build({ show: ['autopatrolled', 'unpatrolled'] })).code).toBe('show');
    expect(recentchanges.build({ show: ['minor', '!bot'] }).params.rcshow).toBe('minor|!bot');
  });

  it('exactly one of a group: missingparam without any, invalidparammix with several', () => {
    expect(thrown(() => backlinks.build({}))).toMatchObject({ code: 'missingparam', param: 'bltitle' });
    expect(thrown(() => backlinks.build({ title: 'A', pageid: 1 }))).toMatchObject({
      code: 'invalidparammix',
      param: 'blpageid',
    });
    expect(backlinks.build({ pageid: 1 }).params.blpageid).toBe('1');
    expect(thrown(() => usercontribs.build({ user: ['A'], userprefix: 'B' })).code).toBe('invalidparammix');
  });

  it('continue formats: badcontinue, per mode where the module has several', () => {
    expect(thrown(() => allpages.build({ continue: 'A|B' }))).toMatchObject({ code: 'badcontinue', param: 'apcontinue' });
    expect(allpages.build({ continue: 'A' }).params.apcontinue).toBe('A');
    expect(thrown(() => categorymembers.build({ title: 'Category:X', continue: 'page|41|7|x' })).code).toBe('badcontinue');
    expect(categorymembers.build({ title: 'Category:X', continue: 'page|41|7' }).params.cmcontinue).toBe('page|41|7');
    expect(categorymembers.build({ title: 'Category:X', sort: 'timestamp', continue: '20240101000000|7' }).params.cmsort).toBe(
      'timestamp',
    );
  });

  it('titles: invalidtitle for bad syntax, invalidcategory outside the Category namespace', () => {
    expect(thrown(() => backlinks.build({ title: 'a[b' }))).toMatchObject({ code: 'invalidtitle', param: 'bltitle' });
    expect(thrown(() => categorymembers.build({ title: 'Fruit' }))).toMatchObject({ code: 'invalidcategory', param: 'cmtitle' });
    expect(thrown(() => allpages.build({ from: 'a|b' })).code).toBe('invalidtitle');
    // titlePartToKey: a namespace prefix in the main namespace's part leaves the namespace
    expect(thrown(() => allpages.build({ prefix: 'Talk:X' })).code).toBe('invalidtitle');
    expect(allpages.build({ prefix: 'X', namespace: 1 }).params.apprefix).toBe('X');
    expect(thrown(() => allpages.build({ prefix: 'Talk:X', namespace: 1 })).code).toBe('invalidtitle');
  });

  it('runs after the module validates, keeps earlier warnings, and can be switched off', () => {
    const e = thrown(() => query({ list: [allpages({ limit: 9999, continue: 'A|B' })] }));
    expect(e.code).toBe('badcontinue');
    expect(e.warnings.map((w) => w.code)).toEqual(['outofrange']);
    expect(query({ list: [backlinks({})] }, { rules: false }).params.list).toBe('backlinks');
  });
});

describe('isPlainTitle', () => {
  // The regex it replaces on the hot path: the two must agree everywhere.
  const PLAIN_TITLE = /^[A-Za-z0-9][A-Za-z0-9 ,'()_-]{0,200}$/;
  it('agrees with the plain-title regex', () => {
    const chars = fc.constantFrom(..."Az09 ,'()_-:#.|\n\u00e9".split(''));
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: chars, maxLength: 210 })), (s) => {
        expect(isPlainTitle(s)).toBe(PLAIN_TITLE.test(s));
      }),
      { numRuns: 2000 },
    );
    for (const s of ['', 'a', ' a', 'a ', 'a'.repeat(201), 'a'.repeat(202), 'Foo (bar)', 'a\n', '-a', 'a-']) {
      expect(isPlainTitle(s)).toBe(PLAIN_TITLE.test(s));
    }
  });
});

describe('ruleApplier', () => {
  const outcome = (f: () => void): string => {
    try {
      f();
      return 'ok';
    } catch (e) {
      if (e instanceof WikiParamError) return `${e.code} ${e.param} ${e.libraryCode}`;
      throw e;
    }
  };

  it('refuses a kind of rule it has no check for, rather than skip it', () => {
    const spec = allpages.spec;
    const only = ruleApplier({ continue: continueRule });
    expect(() => only(spec, spec.rules!, { from: 'A' }, 'ap', undefined)).toThrow(/has a "title-part" rule but no check/);
  });

  it("each generated module's applier gives applyRules' verdict on any parameters (property, every module with rules)", () => {
    const specs = Object.values(generated)
      .map((m) => (m as { spec?: ModuleSpec }).spec)
      .filter((s): s is ModuleSpec => s?.rules !== undefined && s.rules.length > 0);
    expect(specs.length).toBeGreaterThan(15);
    // Values that pass and fail each kind of rule: plain and odd titles, `|`-parted continuations,
    // enum values (so `when` and `requires … equals` conditions meet), numbers, booleans, lists.
    const scalar = fc.oneof(
      fc.constantFrom('Foo', 'A|B', 'A|B|C', 'Talk:Foo', 'Foo#bar', 'a/b', '<x>', '', 'File:X.png', 'Category:Y', 'x:y'),
      fc.integer({ min: -2, max: 20 }),
      fc.boolean(),
    );
    let cases = 0;
    for (const spec of specs) {
      expect(spec.applyRules).not.toBe(applyRules);
      const value = (p: ModuleSpec['parameters'][number]) =>
        Array.isArray(p.type)
          ? p.multi
            ? fc.subarray([...p.type])
            : fc.constantFrom(...p.type)
          : p.multi
            ? fc.array(scalar, { maxLength: 3 })
            : scalar;
      const params = fc.record(Object.fromEntries(spec.parameters.map((p) => [p.name, value(p)])), { requiredKeys: [] });
      fc.assert(
        fc.property(params, fc.boolean(), (given, generator) => {
          cases++;
          const prefix = generator ? `g${spec.prefix}` : spec.prefix;
          const own = outcome(() => spec.applyRules!(spec, spec.rules!, given, prefix, undefined));
          expect(own, spec.name).toBe(outcome(() => applyRules(spec, spec.rules!, given, prefix, undefined)));
        }),
        { numRuns: 300 },
      );
    }
    expect(cases).toBe(specs.length * 300);
  });
});
