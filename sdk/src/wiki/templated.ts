/**
 * Templated parameters (`contentformat-{slot}`), read as ApiBase::extractRequestParams does: each
 * expands once per value of the parameter its variable names (`slots=main` → `contentformat-main`);
 * a value containing `{` or `}` is skipped with one `ignoring-invalid-templated-value` warning; a
 * target without values gives no expansions; a key the caller gave for a value that is not among
 * the target's values is never read by MediaWiki, so it is an `unrecognizedparams` warning here too.
 *
 * Apart from `full-path.ts` because four catalogue modules have such parameters: a descriptor that has
 * them carries {@link readTemplated} (the generator and `defineModule()` give it), so no other
 * module's bundle does.
 */
import type { ParamInfo, TemplatedReader } from './types.js';
import { WikiParamError } from './types.js';

/** Placeholder names in a templated name, in the order they appear (`a-{m}-{t}` → `m`, `t`). */
export function templateVariables(name: string): string[] {
  return [...name.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

interface Expansion {
  /** Unprefixed expanded name. */
  name: string;
  /** Placeholder → value. */
  bindings: Record<string, string>;
}

/**
 * MediaWiki's expansion of one templated parameter against the values already read (ApiBase's
 * queue: a variable whose target is not read yet waits; a target without values ends it).
 */
function expandTemplate(
  settings: ParamInfo,
  values: Record<string, unknown>,
  onInvalid: (target: string, value: string) => void,
): Expansion[] {
  const out: Expansion[] = [];
  const queue: { name: string; targets: Record<string, string>; bindings: Record<string, string> }[] = [
    { name: settings.name, targets: { ...(settings.templatevars ?? {}) }, bindings: {} },
  ];
  while (queue.length > 0) {
    const { name, targets, bindings } = queue.shift()!;
    for (const [placeholder, target] of Object.entries(targets)) {
      if (!(target in values)) continue;
      const targetValues = values[target];
      if (!Array.isArray(targetValues) || targetValues.length === 0) break;
      const rest = { ...targets };
      delete rest[placeholder];
      const token = `{${placeholder}}`;
      for (const raw of targetValues) {
        const value = String(raw);
        if (/[{}]/.test(value)) {
          onInvalid(target, value);
          continue;
        }
        const newName = name.replaceAll(token, value);
        const newBindings = { ...bindings, [placeholder]: value };
        if (Object.keys(rest).length === 0) {
          out.push({ name: newName, bindings: newBindings });
        } else {
          const newTargets: Record<string, string> = {};
          for (const [k, v] of Object.entries(rest)) newTargets[k] = v.replaceAll(token, value);
          queue.push({ name: newName, targets: newTargets, bindings: newBindings });
        }
      }
      break;
    }
  }
  return out;
}

/**
 * Every expanded name a caller's nested record spells (`{main: 'x'}` under `contentformat-{slot}` →
 * `contentformat-main`), nesting in the order the variables appear in the name.
 */
function givenTemplatedValues(
  settings: ParamInfo,
  vars: readonly string[],
  given: unknown,
  param: string,
  module: string,
): { name: string; bindings: Record<string, string>; value: unknown }[] {
  const out: { name: string; bindings: Record<string, string>; value: unknown }[] = [];
  const walk = (node: unknown, depth: number, bindings: Record<string, string>) => {
    if (depth === vars.length) {
      let name = settings.name;
      for (const [k, v] of Object.entries(bindings)) name = name.replaceAll(`{${k}}`, v);
      out.push({ name, bindings, value: node });
      return;
    }
    if (node === undefined || node === null) return;
    if (!isRecord(node)) {
      throw new WikiParamError(
        'badvalue',
        param,
        `Templated parameter "${param}" takes a record keyed by the values of "${settings.templatevars?.[vars[depth]!] ?? vars[depth]}".`,
        module,
      );
    }
    for (const [key, child] of Object.entries(node)) walk(child, depth + 1, { ...bindings, [vars[depth]!]: key });
  };
  walk(given, 0, {});
  return out;
}

/** Each templated parameter's variables, worked out once per settings object. */
const variables = new WeakMap<ParamInfo, readonly string[]>();

/**
 * Reads a module's templated parameters once the others are read (`values`): warns, and calls
 * `read` for each expansion with the caller's value for it (or `undefined`).
 */
export const readTemplated: TemplatedReader = (spec, prefix, input, values, warnings, read) => {
  const module = spec.path;
  // One warning per (target, value) across all templated parameters, as ApiBase keeps one `$warned`.
  const warned = new Set<string>();
  for (const settings of spec.templatedparameters ?? []) {
    const expansions = expandTemplate(settings, values, (target, value) => {
      const key = `${target}\u0000${value}`;
      if (warned.has(key)) return;
      warned.add(key);
      warnings.push({
        code: 'ignoring-invalid-templated-value',
        param: prefix + target,
        module,
        data: { value, template: prefix + settings.name },
      });
    });
    const byName = new Map(expansions.map((e) => [e.name, e]));
    let vars = variables.get(settings);
    if (vars === undefined) {
      vars = templateVariables(settings.name);
      variables.set(settings, vars);
    }
    const supplied = givenTemplatedValues(settings, vars, input[settings.name], prefix + settings.name, module);
    const suppliedByName = new Map(supplied.map((s) => [s.name, s.value]));
    for (const s of supplied) {
      if (!byName.has(s.name) && s.value !== undefined) {
        warnings.push({
          code: 'unrecognizedparams',
          param: prefix + s.name,
          module: 'main',
          data: { params: [prefix + s.name], module, template: prefix + settings.name, bindings: s.bindings },
        });
      }
    }
    for (const e of expansions) read(settings, e.name, suppliedByName.get(e.name));
  }
};
