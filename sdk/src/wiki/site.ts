/**
 * A wiki's site context from its siteinfo: what the validator needs to check namespaces, interwiki
 * prefixes and temporary accounts as that wiki would. Paraminfo does not carry these; siteinfo does.
 *
 * ```ts
 * const info = await (await fetch(`${api}?action=query&meta=siteinfo&siprop=${SITEINFO_PROPS}&format=json&formatversion=2`)).json();
 * const site = siteContextFromSiteinfo(info);
 * allpages.build({ namespace: 9999 }, { site }); // throws WikiParamError badvalue, as the wiki would
 * ```
 */
import type { SiteContext, SiteNamespace } from './types.js';

/** The `siprop` values a site context is read from. */
export const SITEINFO_PROPS = 'general|namespaces|namespacealiases|interwikimap';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What to add to the siteinfo request (`meta=siteinfo|languageinfo`) for the language codes
 * `meta=languageinfo` knows ({@link SiteContext.languages}).
 */
export const LANGUAGEINFO_PARAMS = { liprop: 'code' } as const;

/**
 * Reads a site context from a `meta=siteinfo` response (formatversion 1 or 2, the whole response
 * or its `query`). Unknown or missing parts are left out, so the checks that need them are skipped.
 * When the request also asked `meta=languageinfo` ({@link LANGUAGEINFO_PARAMS}) and its answer is
 * complete (no `licontinue`), its codes become {@link SiteContext.languages}.
 */
export function siteContextFromSiteinfo(response: unknown): SiteContext {
  const root = isObject(response) && isObject(response.query) ? response.query : response;
  const continued = isObject(response) && isObject(response.continue) && 'licontinue' in response.continue;
  if (!isObject(root)) throw new TypeError('siteinfo: expected the JSON of a meta=siteinfo response');
  const site: { -readonly [K in keyof SiteContext]: SiteContext[K] } = {};

  const rawNamespaces = root.namespaces;
  if (isObject(rawNamespaces)) {
    const aliases = new Map<number, string[]>();
    if (Array.isArray(root.namespacealiases)) {
      for (const a of root.namespacealiases) {
        if (!isObject(a) || typeof a.id !== 'number') continue;
        const name = typeof a.alias === 'string' ? a.alias : typeof a['*'] === 'string' ? (a['*'] as string) : undefined;
        if (name !== undefined) aliases.set(a.id, [...(aliases.get(a.id) ?? []), name]);
      }
    }
    const namespaces: SiteNamespace[] = [];
    for (const ns of Object.values(rawNamespaces)) {
      if (!isObject(ns) || typeof ns.id !== 'number') continue;
      const name = typeof ns.name === 'string' ? ns.name : typeof ns['*'] === 'string' ? (ns['*'] as string) : '';
      const entry: SiteNamespace = {
        id: ns.id,
        name,
        ...(typeof ns.canonical === 'string' ? { canonical: ns.canonical } : {}),
        ...(aliases.has(ns.id) ? { aliases: aliases.get(ns.id)! } : {}),
        ...(ns.case === 'case-sensitive' || ns.case === 'first-letter' ? { case: ns.case } : {}),
      };
      namespaces.push(entry);
    }
    namespaces.sort((a, b) => a.id - b.id);
    site.namespaces = namespaces;
  }

  if (Array.isArray(root.interwikimap)) {
    site.interwikiPrefixes = root.interwikimap
      .map((iw) => (isObject(iw) && typeof iw.prefix === 'string' ? iw.prefix : undefined))
      .filter((p): p is string => p !== undefined);
  }

  const general = isObject(root.general) ? root.general : undefined;
  const temp = general && isObject(general.autocreatetempuser) ? general.autocreatetempuser : undefined;
  if (temp?.enabled === true || temp?.enabled === '') {
    const patterns = Array.isArray(temp.matchPatterns)
      ? temp.matchPatterns
      : typeof temp.matchPattern === 'string'
        ? [temp.matchPattern]
        : typeof temp.genPattern === 'string'
          ? [temp.genPattern]
          : [];
    site.tempUserPatterns = patterns.filter((p): p is string => typeof p === 'string');
  }
  if (general && typeof general.misermode === 'boolean') site.miserMode = general.misermode;
  // A languageinfo answer cut short by its time limit lists only some codes: then the wiki decides.
  if (isObject(root.languageinfo) && !continued) site.languages = Object.keys(root.languageinfo);
  return site;
}

/** Whether a `meta=userinfo&uiprop=rights` response grants `apihighlimits`. */
export function hasApiHighLimits(response: unknown): boolean {
  const root = isObject(response) && isObject(response.query) ? response.query : response;
  const info = isObject(root) && isObject(root.userinfo) ? root.userinfo : undefined;
  return Array.isArray(info?.rights) && info.rights.includes('apihighlimits');
}
