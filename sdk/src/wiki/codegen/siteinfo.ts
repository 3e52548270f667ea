/**
 * A siteinfo snapshot beside the generated modules: the wiki's site context (namespaces, interwiki
 * prefixes, temporary accounts, miser mode, the language codes `meta=languageinfo` knows) read from a
 * `meta=siteinfo` JSON file or fetched from an api.php URL (with `meta=languageinfo`, as `WikiClient` asks),
 * written as `site-context.ts` (exporting `site`) so callers can validate offline as that wiki would (`{ site }`).
 */
import { LANGUAGEINFO_PARAMS, SITEINFO_PROPS, siteContextFromSiteinfo } from '../site.js';
import type { SiteContext } from '../types.js';
import type { ParamInfoDocument } from './document.js';
import { DEFAULT_USER_AGENT, ParamInfoFetchError } from './fetch.js';
import { loadFs } from './node.js';

export interface LoadSiteinfoOptions {
  fetch?: typeof fetch;
  userAgent?: string;
}

/** Reads a site context from a siteinfo JSON file, or fetches `meta=siteinfo|languageinfo` from an `api.php` URL. */
export async function loadSiteinfo(source: string, options: LoadSiteinfoOptions = {}): Promise<SiteContext> {
  let json: unknown;
  if (/^https?:\/\//i.test(source)) {
    const url = new URL(source);
    const params = {
      action: 'query',
      meta: 'siteinfo|languageinfo',
      siprop: SITEINFO_PROPS,
      ...LANGUAGEINFO_PARAMS,
      format: 'json',
      formatversion: '2',
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    let res: Response;
    try {
      res = await (options.fetch ?? fetch)(url, { headers: { 'User-Agent': options.userAgent ?? DEFAULT_USER_AGENT } });
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      throw new ParamInfoFetchError(`siteinfo from ${source} failed: ${(error as Error).message}${cause ? ` (${cause})` : ''}`, {
        cause: error,
        network: true,
      });
    }
    if (!res.ok) throw new Error(`siteinfo from ${source}: HTTP ${res.status}`);
    try {
      json = await res.json();
    } catch (error) {
      throw new Error(`siteinfo from ${source}: not JSON (is it the wiki's api.php?)`, { cause: error });
    }
  } else {
    const fs = await loadFs();
    try {
      json = JSON.parse(await fs.readFile(source, 'utf8'));
    } catch (error) {
      throw new Error(`cannot read siteinfo ${source}: ${(error as Error).message}`, { cause: error });
    }
  }
  const site = siteContextFromSiteinfo(json);
  if (!site.namespaces) throw new Error(`siteinfo ${source} has no namespaces (siprop=namespaces)`);
  return site;
}

/** The snapshot's file name, without its extension. */
export const SITE_CONTEXT_FILE = 'site-context';

/** `site-context.ts`: the snapshot as a typed constant, keys in a fixed order (deterministic output). */
export function emitSiteinfo(site: SiteContext, header: readonly string[], runtimeImport: string): string {
  const ordered: SiteContext = {
    ...(site.namespaces ? { namespaces: site.namespaces } : {}),
    ...(site.interwikiPrefixes ? { interwikiPrefixes: [...site.interwikiPrefixes].sort() } : {}),
    ...(site.tempUserPatterns ? { tempUserPatterns: site.tempUserPatterns } : {}),
    ...(site.miserMode !== undefined ? { miserMode: site.miserMode } : {}),
    ...(site.languages ? { languages: [...site.languages].sort() } : {}),
  };
  return [
    ...header,
    `import type { SiteContext } from ${JSON.stringify(runtimeImport)};`,
    '',
    "/** The wiki's site context when these modules were generated: `query(input, { site })` or `new WikiClient({ apiUrl, userAgent, site })` validate as that wiki would. */",
    `export const site: SiteContext = ${JSON.stringify(ordered, null, 2)};`,
    '',
  ].join('\n');
}

/** The file the main and query modules' parameters go to: a name no module's file can have. */
export const MAIN_PARAMETERS_FILE = 'main-parameters';

/**
 * The catalogue's `main` and `query` modules' parameters as `mainParameters`, for `query(input, { main })`:
 * the query's own options validated as that wiki validates them. Undefined when the catalogue has neither.
 */
export function emitMainParameters(doc: ParamInfoDocument, header: readonly string[], runtimeImport: string): string | undefined {
  const found = ['main', 'query'].map((path) => doc.paraminfo.modules.find((m) => m.path === path));
  if (found.every((m) => m === undefined)) return undefined;
  // Only what the validator reads: the same keys a module's parameters keep.
  const parameters = found.flatMap((m) => m?.parameters ?? []);
  return [
    ...header,
    `import type { ParamInfo } from ${JSON.stringify(runtimeImport)};`,
    '',
    "/** The wiki's own `main` and `query` parameters when these modules were generated: `query(input, { main: mainParameters })` checks the query's options as that wiki does. */",
    `export const mainParameters: readonly ParamInfo[] = ${JSON.stringify(parameters, null, 2)};`,
    '',
  ].join('\n');
}
