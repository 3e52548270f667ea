/**
 * The wiki module emitter: one TypeScript file per `query+*` module of a paraminfo document, each
 * with a parameters interface and a `defineTypedModule()` descriptor, plus an `index.ts` that re-exports
 * them all. Pure (no I/O), deterministic: modules and parameters keep the document's order.
 *
 * Type mapping (paraminfo → TypeScript):
 * - an array `type` (enum) → a union of its values as string literals (`never` when empty);
 * - `integer`, `float`, `namespace` → `number`; `limit` → `WikiLimit`; `timestamp` → `WikiTimestamp`;
 *   `boolean` → `boolean`;
 * - anything else (`string`, `text`, `user`, `title`, `password`, `expiry`, `tags`, `upload`, `raw`,
 *   types a later MediaWiki adds) → `string`;
 * - `multi` → `readonly T[]`; an `allspecifier` (usually `*`) adds `| '*'`;
 * - a templated parameter (`contentformat-{slot}`) → `Partial<Record<string, T>>` keyed by the
 *   template variable's value (nested, one level per variable, in the order they occur in the name);
 * - `required` parameters are not optional; a module without parameters gets `Record<string, undefined>`.
 */
import { type RuleTable, relaxedParameters, rulesFor } from '../rules.js';
import type { ModuleGroup, ModuleRule, ParamInfo } from '../types.js';
import type { ParamInfoDocument, ParamInfoModule } from './document.js';

export interface EmitOptions {
  /** The specifier generated files import `defineTypedModule`, the validators and the shared types from. */
  runtimeImport: string;
  /** Comment lines at the top of every file (a do-not-edit notice); each line should start with `//`. */
  header?: readonly string[];
  /** Module rules (`catalogue/rules.json`): each module gets those its parameters match. */
  rules?: RuleTable;
}

/** A module the emitter will write, with the names it gets. */
export interface PlannedModule {
  module: ParamInfoModule;
  group: ModuleGroup;
  /** The exported descriptor: `allpages`, `extFooBar` for `ext-foo-bar`, `deleteModule` for `delete`. */
  identifier: string;
  /** The exported parameters interface: `AllpagesParams`. */
  typeName: string;
  /** `allpages.ts`. */
  fileName: string;
}

export interface SkippedModule {
  path: string;
  reason: string;
}

export interface ModulePlan {
  modules: PlannedModule[];
  skipped: SkippedModule[];
}

const DEFAULT_HEADER = ['// Generated from MediaWiki action=paraminfo by consilium-wiki. Do not edit: regenerate instead.'];
const GROUPS: readonly string[] = ['list', 'prop', 'meta'] satisfies readonly ModuleGroup[];
const LINE_WIDTH = 130;
const DOC_WIDTH = 120;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The check a generated module imports for each kind of rule it has (`rules.ts`), given to `ruleApplier`. */
const RULE_CHECK_NAMES: Readonly<Record<ModuleRule['rule'], string>> = {
  'exclusive-values': 'exclusiveValuesRule',
  'only-one-of': 'oneOfRule',
  'max-one-of': 'oneOfRule',
  continue: 'continueRule',
  title: 'titleRule',
  requires: 'requiresRule',
  'title-part': 'titlePartRule',
  iprange: 'ipRangeRule',
  pattern: 'patternRule',
  'title-warning': 'titleWarningRule',
  'missing-param-deprecation': 'missingParamDeprecationRule',
  'cannot-use-with': 'cannotUseWithRule',
  nonempty: 'nonEmptyRule',
  'log-action': 'logActionRule',
  positive: 'positiveRule',
  'generator-redirects': 'generatorRedirectsRule',
  'miser-mode': 'miserModeRule',
  'known-values': 'knownValuesRule',
  'page-warning': 'pageWarningRule',
  'page-continue': 'pageContinueRule',
  'value-warning': 'valueWarningRule',
};

/** The validators a generated module imports for the non-core types its parameters use (`SUPPLIED_TYPES`). */
const SUPPLIED_VALIDATORS: Readonly<Record<string, string>> = {
  timestamp: 'timestampDef',
  user: 'userDef',
  title: 'titleDef',
  'boolean(BooleanDef)': 'booleanWordsDef',
};
/**
 * Names a generated file must not bind: reserved words (and strict-mode/module restricted names) and
 * the runtime names every file imports. A module whose camelCased name is one of these gets `Module`
 * appended.
 */
const RESERVED = new Set([
  ...`break case catch class const continue debugger default delete do else enum export extends false finally for function
   if import in instanceof new null return super switch this throw true try typeof var void while with implements interface
   let package private protected public static yield await arguments eval undefined NaN Infinity`.split(/\s+/),
  'defineModule',
  'defineTypedModule',
  'applyRules',
  'ruleApplier',
  ...Object.values(RULE_CHECK_NAMES),
  'readTemplated',
  'checkInfoConditions',
  ...Object.values(SUPPLIED_VALIDATORS),
  'WikiLimit',
  'WikiModule',
  'WikiTimestamp',
  // `--siteinfo`'s snapshot, which the index re-exports beside the modules.
  'site',
]);
/** File names taken by something other than a module (compared case-insensitively). */
const RESERVED_FILES = new Set(['index']);

/** `ext-foo.bar` → `extFooBar`; digits first → `_2fa`; reserved words → `deleteModule`. */
export function moduleIdentifier(name: string): string {
  const parts = name.split(/[^A-Za-z0-9_$]+/).filter((part) => part !== '');
  let id = parts.map((part, i) => (i === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1))).join('') || 'module';
  if (/^[0-9]/.test(id)) id = `_${id}`;
  if (RESERVED.has(id) || RESERVED_FILES.has(id.toLowerCase())) id = `${id}Module`;
  return id;
}

const pascal = (id: string): string => id.charAt(0).toUpperCase() + id.slice(1);

/**
 * Chooses the modules to emit and their names. Skips every module that is not a `query+<name>`
 * submodule in the `list`, `prop` or `meta` group (`main`, `query` itself, formats, other actions),
 * saying why. Names that collide after camelCasing (or differ only in case, which would clash on a
 * case-insensitive file system) get `_2`, `_3`, … in document order.
 */
export function planModules(doc: ParamInfoDocument): ModulePlan {
  const modules: PlannedModule[] = [];
  const skipped: SkippedModule[] = [];
  const exported = new Set<string>();
  const files = new Set<string>();
  for (const module of doc.paraminfo.modules) {
    if (!/^query\+[^+]+$/.test(module.path)) {
      skipped.push({ path: module.path, reason: 'not a query submodule' });
      continue;
    }
    const group = module.group;
    if (group === undefined || !GROUPS.includes(group)) {
      skipped.push({ path: module.path, reason: `group ${JSON.stringify(group)} is not list, prop or meta` });
      continue;
    }
    const base = moduleIdentifier(module.name);
    let identifier = base;
    for (
      let n = 2;
      exported.has(identifier) || exported.has(`${pascal(identifier)}Params`) || files.has(identifier.toLowerCase());
      n++
    ) {
      identifier = `${base}_${n}`;
    }
    const typeName = `${pascal(identifier)}Params`;
    exported.add(identifier);
    exported.add(typeName);
    files.add(identifier.toLowerCase());
    modules.push({ module, group: group as ModuleGroup, identifier, typeName, fileName: `${identifier}.ts` });
  }
  return { modules, skipped };
}

export interface PlanSummary {
  modules: number;
  groups: Record<ModuleGroup, number>;
  /** Ordinary parameters over all modules. */
  parameters: number;
  /** Templated parameters over all modules. */
  templated: number;
  skipped: SkippedModule[];
}

/** What a plan comes to, for a summary line. */
export function summarizePlan(plan: ModulePlan): PlanSummary {
  const groups: Record<ModuleGroup, number> = { list: 0, prop: 0, meta: 0 };
  let parameters = 0;
  let templated = 0;
  for (const { module, group } of plan.modules) {
    groups[group]++;
    parameters += module.parameters.length;
    templated += module.templatedparameters?.length ?? 0;
  }
  return { modules: plan.modules.length, groups, parameters, templated, skipped: plan.skipped };
}

/** Every generated file by name: one per module (`allpages.ts`, …) in document order, then `index.ts`. */
export function emitModules(doc: ParamInfoDocument, options: EmitOptions): Map<string, string> {
  const { modules } = planModules(doc);
  const header = options.header ?? DEFAULT_HEADER;
  const helpformat = doc.paraminfo.helpformat;
  const files = new Map<string, string>();
  for (const planned of modules) {
    files.set(planned.fileName, emitModule(planned, header, options.runtimeImport, helpformat, options.rules));
  }
  const exports = modules.map((m) => `export * from ${quote(`./${m.identifier}.js`)};`);
  const ignored = ignoredKeys(modules.map((m) => m.module));
  const notes = [
    ...(ignored.module.length > 0 ? [`// Module keys not used: ${ignored.module.join(', ')}.`] : []),
    ...(ignored.parameter.length > 0 ? [`// Parameter keys not used: ${ignored.parameter.join(', ')}.`] : []),
  ];
  files.set('index.ts', [...header, ...notes, ...(exports.length > 0 ? exports : ['export {};']), ''].join('\n'));
  return files;
}

// --- one module -------------------------------------------------------------------------------

function emitModule(
  planned: PlannedModule,
  header: readonly string[],
  runtimeImport: string,
  helpformat?: string,
  ruleTable?: RuleTable,
): string {
  const { module, group, identifier, typeName } = planned;
  const prefix = module.prefix;
  const params = module.parameters;
  const templated = module.templatedparameters ?? [];
  const used = new Set<string>();
  const members: string[] = [];
  for (const { param, isTemplated } of interfaceOrder(params, templated)) {
    const type = isTemplated ? templatedType(param) : valueType(param);
    collectNames(type, used);
    members.push(...jsdoc(paramDoc(param, module, isTemplated, helpformat), '  '));
    members.push(...property(propertyKey(param.name), !param.required, type, '  '));
  }

  used.add('WikiModule');
  const types = ['WikiLimit', 'WikiModule', 'WikiTimestamp'].filter((n) => used.has(n));
  // The validators beyond the core ones that this module's parameters use, and the rule checker if it
  // has rules: imported by name, so a bundle of this module carries those and no other.
  const validators = Object.entries(SUPPLIED_VALIDATORS).filter(([type]) =>
    [...params, ...templated].some((p) => p.type === type),
  );
  const rules = ruleTable ? rulesFor(module, ruleTable) : [];
  // Likewise the readers of templated parameters and of `info` conditions, which few modules have.
  const hasInfo = params.some((p) => Array.isArray(p.info) && p.info.length > 0);
  const runtimeNames = [
    // Rules: an applier made of the checks of this module's kinds of rules only.
    ...new Set(rules.length > 0 ? ['ruleApplier', ...rules.map((r) => RULE_CHECK_NAMES[r.rule])] : []),
    ...(hasInfo ? ['checkInfoConditions'] : []),
    'defineTypedModule',
    ...(templated.length > 0 ? ['readTemplated'] : []),
    ...validators.map(([, v]) => v),
  ];
  const names = [...runtimeNames.sort(), ...types.map((n) => `type ${n}`)];
  const lines: string[] = [...header, ...importLine(names, runtimeImport), ''];
  const where = `\`${group}=${module.name}\``;
  lines.push(...jsdoc(moduleDoc(planned, helpformat), ''));
  // No parameters: no key may carry a value, yet `{}` (and so the call without arguments) fits.
  if (members.length === 0) lines.push(`export type ${typeName} = Record<string, undefined>;`);
  else lines.push(`export interface ${typeName} {`, ...members, '}');
  lines.push('');

  const constDoc = [`The ${where} module, for the query builder; its parameters are {@link ${typeName}}.`];
  lines.push(...jsdoc({ text: constDoc, tags: statusTags(module) }, ''));
  const spec: [string, unknown][] = [
    ['name', module.name],
    ['path', module.path],
    ['group', group],
    ['prefix', prefix],
  ];
  if (module.generator) spec.push(['generator', true]);
  if (module.deprecated) spec.push(['deprecated', true]);
  if (module.internal) spec.push(['internal', true]);
  // The rights are the docs' (and the wiki's answer, which WikiClient types): the request needs only the method.
  if (module.mustbeposted) spec.push(['mustbeposted', true]);
  // A parameter a rule validates itself is read as a string (its interface keeps paraminfo's values).
  spec.push(['parameters', relaxedParameters(params, rules).map(runtimeParam)]);
  if (templated.length > 0) spec.push(['templatedparameters', templated.map(runtimeParam)]);
  if (rules.length > 0) spec.push(['rules', rules]);
  // The annotation, not type arguments on the call, gives the module its type: declaration files
  // then name it `WikiModule<…>` (whatever the runtime calls its parts, and under isolatedDeclarations),
  // and TypeScript infers defineTypedModule's type arguments from it.
  lines.push(
    `export const ${identifier}: WikiModule<${typeName}, ${quote(group)}, ${module.generator === true}> = defineTypedModule({`,
  );
  for (const [key, value] of spec) lines.push(...entry(key, value, '  '));
  if (validators.length > 0) {
    const types = `  types: { ${validators.map(([type, v]) => `${propertyKey(type)}: ${v}`).join(', ')} },`;
    if (types.length <= LINE_WIDTH) lines.push(types);
    else lines.push('  types: {', ...validators.map(([type, v]) => `    ${propertyKey(type)}: ${v},`), '  },');
  }
  if (rules.length > 0) {
    const kinds = [...new Set(rules.map((r) => r.rule))];
    const checks = kinds.map((k) => `${propertyKey(k)}: ${RULE_CHECK_NAMES[k]}`);
    const one = `  applyRules: ruleApplier({ ${checks.join(', ')} }),`;
    if (one.length <= LINE_WIDTH) lines.push(one);
    else lines.push('  applyRules: ruleApplier({', ...checks.map((c) => `    ${c},`), '  }),');
  }
  if (templated.length > 0) lines.push('  readTemplated,');
  if (hasInfo) lines.push('  checkInfo: checkInfoConditions,');
  lines.push('});', '');
  return lines.join('\n');
}

/** Parameters in the interface: templated ones sit where their `index` puts them, if every parameter has one. */
function interfaceOrder(params: readonly ParamInfo[], templated: readonly ParamInfo[]) {
  const all = [
    ...params.map((param) => ({ param, isTemplated: false })),
    ...templated.map((param) => ({ param, isTemplated: true })),
  ];
  if (templated.length > 0 && all.every(({ param }) => typeof param.index === 'number')) {
    return all.map((p, order) => ({ ...p, order })).sort((a, b) => a.param.index! - b.param.index! || a.order - b.order);
  }
  return all;
}

/** The keys the runtime uses to validate and serialize, in a fixed order; `false` markers are left out. */
const RUNTIME_KEYS = [
  'index',
  'name',
  'type',
  'default',
  'required',
  'multi',
  'lowlimit',
  'highlimit',
  'limit',
  'min',
  'max',
  'highmax',
  'maxbytes',
  'maxchars',
  'allspecifier',
  'extranamespaces',
  'subtypes',
  'deprecated',
  'deprecatedvalues',
  'sensitive',
  'allowsduplicates',
  'info',
  'templatevars',
  'tokentype',
] as const;

function runtimeParam(param: ParamInfo): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of RUNTIME_KEYS) {
    const value = param[key];
    if (value === undefined || value === false) continue;
    out[key] = value;
  }
  return out;
}

/** The module keys the emitter reads: into the descriptor, the types or the docs. */
export const USED_MODULE_KEYS: ReadonlySet<string> = new Set([
  'name',
  'path',
  'group',
  'prefix',
  'generator',
  'deprecated',
  'internal',
  'readrights',
  'writerights',
  'mustbeposted',
  'dynamicparameters',
  'sourcename',
  'helpurls',
  'description',
  'parameters',
  'templatedparameters',
]);

/** The parameter keys the emitter reads: the descriptor's ({@link RUNTIME_KEYS}) and the docs' own. */
export const USED_PARAMETER_KEYS: ReadonlySet<string> = new Set<string>([
  ...(['description', 'internalvalues', 'mustExist'] as const),
  ...RUNTIME_KEYS,
]);

/** The keys of these modules and their parameters that the emitter does not read, sorted: named in `index.ts`. */
export function ignoredKeys(modules: readonly ParamInfoModule[]): { module: string[]; parameter: string[] } {
  const module = new Set<string>();
  const parameter = new Set<string>();
  for (const m of modules) {
    for (const key of Object.keys(m)) if (!USED_MODULE_KEYS.has(key)) module.add(key);
    for (const p of [...m.parameters, ...(m.templatedparameters ?? [])]) {
      for (const key of Object.keys(p)) if (!USED_PARAMETER_KEYS.has(key)) parameter.add(key);
    }
  }
  return { module: [...module].sort(), parameter: [...parameter].sort() };
}

// --- types ------------------------------------------------------------------------------------

type TypeNode =
  | { kind: 'name'; text: string }
  | { kind: 'union'; members: TypeNode[] }
  | { kind: 'array'; element: TypeNode }
  | { kind: 'record'; value: TypeNode };

const named = (text: string): TypeNode => ({ kind: 'name', text });
const union = (members: TypeNode[]): TypeNode =>
  members.length === 0 ? named('never') : members.length === 1 ? members[0]! : { kind: 'union', members };

function valueType(param: ParamInfo): TypeNode {
  let type: TypeNode;
  if (Array.isArray(param.type)) {
    type = union(unique(param.type).map((v) => named(quote(v))));
  } else {
    switch (param.type) {
      case 'boolean':
        type = named('boolean');
        break;
      case 'integer':
      case 'float':
      case 'namespace':
        type = named('number');
        break;
      case 'limit':
        type = named('WikiLimit');
        break;
      case 'timestamp':
        type = named('WikiTimestamp');
        break;
      default:
        type = named('string');
    }
  }
  if (param.multi) type = { kind: 'array', element: type };
  if (param.allspecifier !== undefined) type = union([type, named(quote(param.allspecifier))]);
  return type;
}

/** `contentformat-{slot}` → `Partial<Record<string, T>>`, one level per template variable. */
function templatedType(param: ParamInfo): TypeNode {
  let type = valueType(param);
  for (let i = templateVariables(param).length; i > 0; i--) type = { kind: 'record', value: type };
  return type;
}

/** The template variables in the order they occur in the parameter's name. */
function templateVariables(param: ParamInfo): string[] {
  const vars = Object.keys(param.templatevars ?? {});
  return vars.sort((a, b) => param.name.indexOf(`{${a}}`) - param.name.indexOf(`{${b}}`));
}

function collectNames(type: TypeNode, into: Set<string>): void {
  if (type.kind === 'name') into.add(type.text);
  else if (type.kind === 'union') for (const m of type.members) collectNames(m, into);
  else collectNames(type.kind === 'array' ? type.element : type.value, into);
}

function flat(type: TypeNode): string {
  switch (type.kind) {
    case 'name':
      return type.text;
    case 'union':
      return type.members.map(flat).join(' | ');
    case 'array':
      return type.element.kind === 'union' ? `readonly (${flat(type.element)})[]` : `readonly ${flat(type.element)}[]`;
    case 'record':
      return `Partial<Record<string, ${flat(type.value)}>>`;
  }
}

/**
 * The type on lines of its own at `indent`, laid out as Biome would: on one line if it fits (and the
 * caller has not already decided it does not: `broken`), else unions one member per line.
 */
function block(type: TypeNode, indent: string, broken = false): string[] {
  const one = flat(type);
  if (type.kind === 'name' || (!broken && indent.length + one.length <= LINE_WIDTH)) return [indent + one];
  switch (type.kind) {
    case 'union':
      return type.members.flatMap((member) => {
        const lines = block(member, `${indent}  `);
        return [`${indent}| ${lines[0]!.trimStart()}`, ...lines.slice(1)];
      });
    case 'array':
      if (type.element.kind !== 'union') return [indent + one];
      return [`${indent}readonly (`, ...block(type.element, `${indent}  `, true), `${indent})[]`];
    case 'record':
      return [
        `${indent}Partial<`,
        `${indent}  Record<`,
        `${indent}    string,`,
        ...block(type.value, `${indent}    `),
        `${indent}  >`,
        `${indent}>`,
      ];
  }
}

function property(key: string, optional: boolean, type: TypeNode, indent: string): string[] {
  const head = `${indent}${key}${optional ? '?' : ''}:`;
  const one = `${head} ${flat(type)};`;
  if (one.length <= LINE_WIDTH) return [one];
  let lines: string[];
  if (type.kind === 'union') lines = [head, ...block(type, `${indent}  `, true)];
  else {
    const body = block(type, indent, true);
    lines = [`${head} ${body[0]!.trimStart()}`, ...body.slice(1)];
  }
  lines[lines.length - 1] += ';';
  return lines;
}

function importLine(names: readonly string[], from: string): string[] {
  const one = `import { ${names.join(', ')} } from ${quote(from)};`;
  if (one.length <= LINE_WIDTH) return [one];
  return ['import {', ...names.map((n) => `  ${n},`), `} from ${quote(from)};`];
}

// --- values -----------------------------------------------------------------------------------

/** A JavaScript string literal, quoted as Biome/Prettier would: single quotes unless double ones need fewer escapes. */
export function quote(text: string): string {
  const body = JSON.stringify(text)
    .slice(1, -1)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  const singles = (text.match(/'/g) ?? []).length;
  const doubles = (text.match(/"/g) ?? []).length;
  if (singles > doubles) return `"${body}"`;
  return `'${body.replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

const propertyKey = (name: string): string => (IDENTIFIER.test(name) ? name : quote(name));

function flatValue(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.map(flatValue).join(', ')}]`;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  return `{ ${entries.map(([k, v]) => `${propertyKey(k)}: ${flatValue(v)}`).join(', ')} }`;
}

/** `key: value,` at `indent`, broken over lines (one entry per line) where it does not fit. */
function entry(key: string | undefined, value: unknown, indent: string): string[] {
  const head = key === undefined ? indent : `${indent}${propertyKey(key)}: `;
  const one = `${head}${flatValue(value)},`;
  if (one.length <= LINE_WIDTH) return [one];
  if (value === null || typeof value !== 'object') {
    return key === undefined ? [one] : [`${indent}${propertyKey(key)}:`, `${indent}  ${flatValue(value)},`];
  }
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return [one];
    return [`${head}[`, ...value.flatMap((v) => entry(undefined, v, inner)), `${indent}],`];
  }
  return [`${head}{`, ...Object.entries(value).flatMap(([k, v]) => entry(k, v, inner)), `${indent}},`];
}

// --- documentation ----------------------------------------------------------------------------

interface Doc {
  text: string[];
  tags: string[];
}

function statusTags(module: ParamInfoModule): string[] {
  const tags: string[] = [];
  if (module.internal) tags.push('@internal MediaWiki marks this module internal: it may change or go away without notice.');
  if (module.deprecated) tags.push('@deprecated MediaWiki marks this module deprecated.');
  return tags;
}

function moduleDoc(planned: PlannedModule, helpformat: string | undefined): Doc {
  const { module, group } = planned;
  const prefix = module.prefix === '' ? 'no prefix' : `prefix \`${module.prefix}\``;
  const text = [`Parameters of \`${group}=${module.name}\` (${prefix}).`];
  const description = prose(module.description, helpformat);
  if (description) text.push(description);
  if (module.generator) {
    text.push(`Usable as a generator: \`generator=${module.name}\`, with each parameter prefixed \`g${module.prefix}\`.`);
  }
  if (module.sourcename && module.sourcename !== 'MediaWiki') text.push(`Provided by ${module.sourcename}.`);
  const rights = [module.readrights ? 'read' : '', module.writerights ? 'write' : ''].filter(Boolean);
  if (rights.length > 0) {
    text.push(
      `Needs the ${rights.join(' and ')} right${rights.length > 1 ? 's' : ''}: without ${rights.length > 1 ? 'them' : 'it'}, \`WikiClient\` rejects with a \`WikiRightsError\`.`,
    );
  }
  if (module.mustbeposted) text.push('MediaWiki refuses it by GET: a query that uses it is sent by POST.');
  if (module.dynamicparameters) text.push('Takes parameters beyond these, which depend on the values of others.');
  const tags = statusTags(module);
  // Only real links: a catalogue transcribed from source may hold placeholders such as `{help_url}`.
  for (const url of module.helpurls ?? []) if (/^https?:\/\/\S+$/.test(url)) tags.push(`@see ${url}`);
  return { text, tags };
}

/** A value as inline code in a comment: control characters escaped as in JSON, backticks fenced. */
function code(value: string | number): string {
  const text = typeof value === 'number' ? String(value) : JSON.stringify(value).slice(1, -1).replace(/\\"/g, '"');
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``;
}

function list(values: readonly (string | number)[]): string {
  const shown = values.map((v) => (v === '' ? '(empty)' : code(v)));
  return shown.length <= 1 ? (shown[0] ?? '') : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
}

const CONDITIONS: Record<string, (prefix: string, values: readonly (string | number)[]) => string> = {
  useronly: (prefix) => `May only be used with \`${prefix}user\`.`,
  nonuseronly: (prefix) => `Cannot be used with \`${prefix}user\`.`,
  modes: (_, values) => `Applies to mode${values.length === 1 ? '' : 's'} ${list(values)}.`,
  singlepageonly: () => 'May only be used with a single page.',
  preloadcontentonly: (prefix) => `Only used when \`${prefix}prop\` includes \`preloadcontent\`.`,
  editintroonly: (prefix) => `Only used when \`${prefix}prop\` includes \`editintro\`.`,
};

function paramDoc(param: ParamInfo, module: ParamInfoModule, isTemplated: boolean, helpformat: string | undefined): Doc {
  const prefix = module.prefix;
  const wire = `${prefix}${param.name}`;
  const typeName = Array.isArray(param.type) ? 'enum' : String(param.type);
  const subtypes = param.subtypes && param.subtypes.length > 0 ? `: ${param.subtypes.join(', ')}` : '';
  const traits = [typeName + subtypes, param.multi ? 'multiple values' : '', param.required ? 'required' : ''].filter(Boolean);
  const text = [`${code(wire)} (${traits.join(', ')}).`];
  const description = prose(param.description, helpformat);
  if (description) text.push(description);

  if (isTemplated) {
    const vars = templateVariables(param);
    const sources = vars.map((v) => `\`{${v}}\` takes the values of \`${prefix}${param.templatevars?.[v] ?? v}\``);
    const keyed = vars.length === 1 ? 'keyed by that value' : `nested in the order ${vars.map((v) => `{${v}}`).join(', ')}`;
    text.push(`Templated: ${sources.join('; ')}; give one value per parameter, ${keyed}.`);
  }
  if (param.multi) {
    const low = param.lowlimit ?? param.limit;
    const caps =
      low === undefined
        ? ''
        : `Up to ${low} values${param.highlimit !== undefined && param.highlimit !== low ? ` (${param.highlimit} with apihighlimits)` : ''}`;
    const notes = [caps, param.allowsduplicates ? 'duplicates allowed' : ''].filter(Boolean);
    if (param.allspecifier !== undefined) notes.push(`${code(param.allspecifier)} means all values`);
    if (notes.length > 0) text.push(`${capitalize(notes.join('; '))}.`);
  } else if (param.allspecifier !== undefined) {
    text.push(`${code(param.allspecifier)} means all values.`);
  }
  const range = bounds(param);
  if (range) text.push(range);
  if (param.extranamespaces && param.extranamespaces.length > 0) {
    text.push(`Also accepts namespace${param.extranamespaces.length === 1 ? '' : 's'} ${list(param.extranamespaces)}.`);
  }
  if (param.maxbytes !== undefined) text.push(`At most ${param.maxbytes} bytes.`);
  if (param.maxchars !== undefined) text.push(`At most ${param.maxchars} characters.`);
  for (const info of param.info ?? []) {
    const values = info.values ?? [];
    const condition = CONDITIONS[info.name];
    text.push(
      condition ? condition(prefix, values) : `Condition: ${code(info.name)}${values.length ? ` (${list(values)})` : ''}.`,
    );
  }
  if (param.sensitive) text.push('Sensitive: MediaWiki keeps it out of logs.');
  if (typeof param.tokentype === 'string') {
    text.push(`A ${code(param.tokentype)} token (\`meta=tokens\`): \`WikiClient\` fetches it when not given.`);
  }
  if (param.mustExist === true) text.push('Must name a page that exists.');
  if (param.deprecatedvalues && param.deprecatedvalues.length > 0) {
    text.push(`Deprecated value${param.deprecatedvalues.length === 1 ? '' : 's'}: ${list(param.deprecatedvalues)}.`);
  }
  const internal = param.internalvalues;
  if (Array.isArray(internal) && internal.length > 0) {
    text.push(`Internal value${internal.length === 1 ? '' : 's'} (may change without notice): ${list(internal as string[])}.`);
  }

  const tags: string[] = [];
  if (param.default !== undefined) tags.push(`@defaultValue ${code(defaultLiteral(param))}`);
  if (param.deprecated) tags.push('@deprecated MediaWiki marks this parameter deprecated.');
  return { text, tags };
}

function bounds(param: ParamInfo): string {
  const { min, max, highmax } = param;
  const high = highmax !== undefined && highmax !== max ? ` (${highmax} with apihighlimits)` : '';
  let text = '';
  if (min !== undefined && max !== undefined) text = `From ${min} to ${max}${high}`;
  else if (min !== undefined) text = `At least ${min}`;
  else if (max !== undefined) text = `At most ${max}${high}`;
  if (param.type !== 'limit') return text ? `${text}.` : '';
  const asMax = "`'max'` asks for the most allowed.";
  return text ? `${text}; ${asMax}` : asMax;
}

/** paraminfo's default as a value of the property's type: `10`, `'older'`, `['ids', 'timestamp']`. */
function defaultLiteral(param: ParamInfo): string {
  const value = param.default;
  if (typeof value !== 'string') return String(value);
  if (!param.multi) return quote(value);
  if (value === '') return '[]';
  const parts = value.startsWith('\u001f') ? value.slice(1).split('\u001f') : value.split('|');
  return `[${parts.map(quote).join(', ')}]`;
}

/** A catalogue description as plain text (tags and entities of `helpformat=html` removed), or `''`. */
function prose(description: unknown, helpformat: string | undefined): string {
  if (typeof description !== 'string') return '';
  let text = description;
  if (helpformat === 'html') {
    text = text
      .replace(/<[^>]*>/g, '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#0?39;/g, "'")
      .replace(/&nbsp;/g, ' ')
      .replace(/&amp;/g, '&');
  }
  // `\@` keeps an `@` that a wrapped line starts with from reading as a TSDoc tag.
  return text.replace(/\s+/g, ' ').trim().replace(/@/g, '\\@');
}

const capitalize = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** Text safe inside a block comment. */
const commentSafe = (text: string): string => text.replace(/\*\//g, '*\\/');

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(line);
  return lines;
}

function jsdoc(doc: Doc, indent: string): string[] {
  const width = DOC_WIDTH - indent.length - 3;
  const text = doc.text.map(commentSafe).flatMap((t) => wrap(t, width));
  const tags = doc.tags.map(commentSafe).flatMap((t) => wrap(t, width));
  const body = [...text, ...tags];
  const one = `${indent}/** ${body[0] ?? ''} */`;
  if (body.length === 1 && one.length <= LINE_WIDTH) return [one];
  return [`${indent}/**`, ...body.map((l) => `${indent} * ${l}`), `${indent} */`];
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
