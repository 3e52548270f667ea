/**
 * `consilium wiki build <module>`: a wiki query from the command line, its options the module's own
 * parameters, validated as MediaWiki would and printed as the URL (`--help` lists them). `wiki generate`
 * is `consilium-wiki generate`, handed its arguments untouched.
 */
import * as wikiModules from '../../generated/wiki/index.js';
import { jsonLine, oneLine } from '../../terminal/terminal.js';
import { UsageError } from '../../terminal/usage.js';
import { main as wikiCodegen } from '../../wiki/codegen/cli.js';
import { query } from '../../wiki/query.js';
import { type Parsed, stringFlag } from '../args.js';
import { type Command, EXIT, type Io } from '../context.js';
import { didYouMean } from '../suggest.js';

/** `wiki generate …`: consilium-wiki's own command line, writing to stdout until it closes. */
export function generate(args: readonly string[], io: Io, closed: AbortSignal): Promise<number> {
  return wikiCodegen(args, {
    stdout: (t) => {
      if (!closed.aborted) io.stdout.write(t);
    },
    stderr: (t) => io.stderr.write(t),
    ...(io.fetch && { fetch: io.fetch }),
  });
}

type WikiBuilder = ((params: object) => unknown) & {
  spec: {
    group: string;
    name: string;
    prefix: string;
    parameters: readonly { name: string; type: string | readonly string[]; multi?: boolean }[];
  };
};

/** The module's builder, or a usage error. */
function wikiModule(name: string): WikiBuilder {
  const mod = (wikiModules as Record<string, unknown>)[name] as WikiBuilder | undefined;
  if (typeof mod !== 'function' || !('spec' in mod)) {
    const names = Object.entries(wikiModules)
      .filter(([, m]) => typeof m === 'function' && 'spec' in m)
      .map(([n]) => n);
    throw new UsageError(`unknown wiki module: ${oneLine(name)}${didYouMean(name, names)}`);
  }
  return mod;
}

/** `wiki build` options that are the command's own, not the module's parameters. */
const WIKI_OWN = new Set(['api', 'json', 'no-color', 'highlimits', 'help']);
/** Those of them that take no value. */
const OWN_BOOLEANS = new Set(['json', 'no-color', 'highlimits', 'help']);
/** The query's page set, for prop modules (each may be given several times). */
const PAGE_SET = new Set(['titles', 'pageids', 'revids']);

/** `consilium wiki build <module> --help`: the module's parameters and what each takes. */
function wikiModuleHelp(name: string): string {
  const mod = wikiModule(name);
  const lines = mod.spec.parameters.map((p) => {
    const type = typeof p.type === 'string' ? p.type : p.type.map((v) => (v === '' ? "''" : v)).join('|');
    const value = p.type === 'boolean' ? '' : p.multi ? ' <value|value…>' : ' <value>';
    // `links`' own `titles` is `--pltitles`: `--titles` is the page set.
    const flag = PAGE_SET.has(p.name) ? `${mod.spec.prefix}${p.name}` : p.name;
    return `${`  --${flag}${value}`.padEnd(34)} ${type}${p.multi ? ' (several: repeat it, or separate by |)' : ''}`;
  });
  return `Usage: consilium wiki build ${name} [--<param> <value>…] [--titles T… | --pageids N… | --revids N…] [--api URL] [--highlimits] [--json]

Parameters of ${mod.spec.group}=${mod.spec.name}, by name or prefixed (--${mod.spec.prefix}${mod.spec.parameters[0]?.name ?? 'name'}); a boolean one takes no value,
a multi-valued one may be given several times:
${lines.join('\n')}
  ${'--titles, --pageids, --revids'.padEnd(33)} the pages (each repeatable): ${mod.spec.group === 'prop' ? 'what a prop module reads' : 'for a prop module'}
`;
}

/**
 * `wiki build <module> --param value…`: the module's parameters are the options. Only a boolean
 * parameter stands alone; any other needs a value (`--prefix` alone is a mistake, not `apprefix=1`).
 */
function parseWikiArgs(args: readonly string[]): Parsed {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  // The module comes right after `build`; without one, only the command's own options are known.
  const moduleName = args[0] === 'build' && args[1] !== undefined && !args[1].startsWith('-') ? args[1] : undefined;
  const params = moduleName === undefined ? undefined : wikiModule(moduleName).spec.parameters;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-h') {
      flags.set('help', true);
      continue;
    }
    if (!arg.startsWith('--')) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const given = arg.slice(2, eq > 0 ? eq : undefined);
    // `--titles`, `--pageids`, `--revids` are the page set, kept as `@titles`…; a module's own parameter
    // is `--limit` or, as the API spells it, `--aplimit` (so `links`' own `titles` is `--pltitles`).
    const pages = moduleName !== undefined && PAGE_SET.has(given);
    const prefix = moduleName === undefined ? '' : wikiModule(moduleName).spec.prefix;
    const param = pages
      ? undefined
      : (params?.find((p) => p.name === given && !PAGE_SET.has(p.name)) ??
        (prefix && given.startsWith(prefix) ? params?.find((p) => p.name === given.slice(prefix.length)) : undefined));
    const name = pages ? `@${given}` : (param?.name ?? given);
    if (flags.has(name) && !pages && !param?.multi) throw new UsageError(`--${given} given twice`);
    if (!pages && !WIKI_OWN.has(name) && !param) {
      if (!params) throw new UsageError(`unknown option --${name}`);
      const known = params.map((p) => `--${PAGE_SET.has(p.name) ? prefix : ''}${p.name}`).join(', ');
      throw new UsageError(`${moduleName} has no parameter --${name}; it has ${known} (see --help)`);
    }
    const standsAlone = param ? param.type === 'boolean' : OWN_BOOLEANS.has(name);
    if (standsAlone) {
      if (eq > 0) throw new UsageError(`--${given} takes no value`);
      flags.set(name, true);
      continue;
    }
    const value = eq > 0 ? arg.slice(eq + 1) : args[i + 1];
    if (value === undefined || (eq < 0 && value.startsWith('--'))) {
      throw new UsageError(
        `--${given} needs a value${param ? ` (${typeof param.type === 'string' ? param.type : param.type.join('|')})` : ''}`,
      );
    }
    if (eq < 0) i++;
    // Several values of a multi-valued parameter (or page set) are joined as MediaWiki's `|` list.
    const before = flags.get(name);
    flags.set(name, typeof before === 'string' ? `${before}|${value}` : value);
  }
  return { positionals, flags };
}

/** `--titles A --titles B` (or `A|B`) as the page set; `--pageids`/`--revids` as numbers. */
function pageSet(key: string, value: string): string[] | number[] {
  const values = value.split('|');
  if (key === 'titles') return values;
  const numbers = values.map(Number);
  const bad = values.find((v, i) => !/^\d+$/.test(v) || !Number.isSafeInteger(numbers[i]));
  if (bad !== undefined)
    throw new UsageError(`--${key} takes page or revision ids (whole numbers), not ${JSON.stringify(oneLine(bad))}`);
  return numbers;
}

export const wiki: Command = {
  booleans: ['highlimits'],
  parse: parseWikiArgs,
  help(parsed) {
    const [sub, name] = parsed.positionals;
    return parsed.flags.has('help') && sub === 'build' && name ? wikiModuleHelp(name) : undefined;
  },
  async run(ctx) {
    const [sub, name, ...extra] = ctx.parsed.positionals;
    if (sub !== 'build') throw new UsageError(`unknown wiki command: ${sub ?? '(none)'} (build, generate)`);
    if (!name) throw new UsageError('wiki build needs a module, e.g. consilium wiki build allpages --limit 10');
    if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
    const mod = wikiModule(name);
    const params: Record<string, string | true> = {};
    const pages: Record<string, string[] | number[]> = {};
    for (const [key, value] of ctx.parsed.flags) {
      if (WIKI_OWN.has(key)) continue;
      if (key.startsWith('@')) pages[key.slice(1)] = pageSet(key.slice(1), value as string);
      else params[key] = value;
    }
    const api = stringFlag(ctx.parsed, 'api') ?? 'https://en.wikipedia.org/w/api.php';
    if (!/^https?:\/\//i.test(api)) throw new UsageError('--api must be an http(s) URL of api.php');
    const built = query({ [mod.spec.group]: [mod(params)], ...pages } as Parameters<typeof query>[0], {
      ...(ctx.parsed.flags.has('highlimits') && { apihighlimits: true }),
    });
    const body = built.toString();
    // As WikiClient sends it: after any query string the API URL already has.
    const target = new URL(api);
    if (built.method === 'GET') target.search = target.search ? `${target.search}&${body}` : body;
    const url = target.href;
    if (ctx.json) {
      ctx.out(jsonLine({ method: built.method, url, params: built.params, warnings: built.warnings }));
      return EXIT.ok;
    }
    ctx.out(`${oneLine(built.method === 'GET' ? url : `POST ${url}`)}${built.method === 'GET' ? '' : `\n${oneLine(body)}`}\n`);
    for (const w of built.warnings) {
      ctx.io.stderr.write(
        `${ctx.paint('yellow', 'warning:')} ${oneLine(`${w.code} ${w.param}${w.data ? ` ${JSON.stringify(w.data)}` : ''}`)}\n`,
      );
    }
    return EXIT.ok;
  },
};
