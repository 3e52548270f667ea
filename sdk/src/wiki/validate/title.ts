/**
 * `title` (TitleDef) and the title parsing that user names also go through: a port of
 * MediaWikiTitleCodec::splitTitleString() with the wiki's namespaces and interwiki prefixes taken
 * from the optional SiteContext (MediaWiki's canonical English namespace names always work).
 */
import type { SiteContext, SiteNamespace, TypeDef } from '../types.js';
import { sanitizeIP } from './ip.js';
import { hasLoneSurrogate, ucfirst, utf8Length } from './text.js';

export const NS_SPECIAL = -1;
export const NS_MAIN = 0;
const NS_TALK = 1;
export const NS_USER = 2;
const NS_USER_TALK = 3;
const NS_MEDIAWIKI = 8;

/** MediaWiki's built-in namespaces with their canonical names, as an English wiki reports them. */
export const CANONICAL_NAMESPACES: readonly SiteNamespace[] = Object.freeze([
  { id: -2, name: 'Media', canonical: 'Media' },
  { id: -1, name: 'Special', canonical: 'Special' },
  { id: 0, name: '' },
  { id: 1, name: 'Talk', canonical: 'Talk' },
  { id: 2, name: 'User', canonical: 'User' },
  { id: 3, name: 'User talk', canonical: 'User talk' },
  { id: 4, name: 'Project', canonical: 'Project' },
  { id: 5, name: 'Project talk', canonical: 'Project talk' },
  { id: 6, name: 'File', canonical: 'File', aliases: ['Image'] },
  { id: 7, name: 'File talk', canonical: 'File talk', aliases: ['Image talk'] },
  { id: 8, name: 'MediaWiki', canonical: 'MediaWiki' },
  { id: 9, name: 'MediaWiki talk', canonical: 'MediaWiki talk' },
  { id: 10, name: 'Template', canonical: 'Template' },
  { id: 11, name: 'Template talk', canonical: 'Template talk' },
  { id: 12, name: 'Help', canonical: 'Help' },
  { id: 13, name: 'Help talk', canonical: 'Help talk' },
  { id: 14, name: 'Category', canonical: 'Category' },
  { id: 15, name: 'Category talk', canonical: 'Category talk' },
]);

/** Namespaces whose titles always start with a capital, whatever the wiki's settings. */
const ALWAYS_CAPITALIZED = new Set([NS_SPECIAL, NS_USER, NS_MEDIAWIKI]);

const nsKey = (name: string): string => name.replace(/ /g, '_').toLowerCase();

interface NamespaceTable {
  byName: Map<string, number>;
  names: Map<number, string>;
  caseSensitive: Set<number>;
  interwiki: Set<string>;
}

const tables = new WeakMap<SiteContext, NamespaceTable>();
const EMPTY_SITE: SiteContext = {};

function table(site: SiteContext): NamespaceTable {
  const cached = tables.get(site);
  if (cached) return cached;
  const byName = new Map<string, number>();
  const names = new Map<number, string>();
  const caseSensitive = new Set<number>();
  const add = (name: string | undefined, id: number) => {
    if (name) byName.set(nsKey(name), id);
  };
  // Canonical names are recognized on every wiki; the wiki's own names and aliases on top.
  for (const ns of CANONICAL_NAMESPACES) {
    add(ns.canonical, ns.id);
    for (const alias of ns.aliases ?? []) add(alias, ns.id);
    names.set(ns.id, ns.name);
  }
  for (const ns of site.namespaces ?? []) {
    add(ns.name, ns.id);
    add(ns.canonical, ns.id);
    for (const alias of ns.aliases ?? []) add(alias, ns.id);
    names.set(ns.id, ns.name);
    if (ns.case === 'case-sensitive') caseSensitive.add(ns.id);
  }
  const interwiki = new Set((site.interwikiPrefixes ?? []).map((p) => p.toLowerCase()));
  const t = { byName, names, caseSensitive, interwiki };
  tables.set(site, t);
  return t;
}

export class MalformedTitleError extends Error {
  override name = 'MalformedTitleError';
  constructor(
    /** MediaWiki's message key, e.g. `title-invalid-characters`. */
    readonly reason: string,
    readonly text: string,
  ) {
    super(`${reason}: ${JSON.stringify(text)}`);
  }
}

export interface ParsedTitle {
  namespace: number;
  /** The page name with underscores (`Foo_bar`). */
  dbkey: string;
  /** Lower-case interwiki prefix, `''` for a local title. */
  interwiki: string;
  fragment: string;
}

/** Title::getTitleInvalidRegex() with `\x80-\xFF` (any UTF-8 byte of a non-ASCII character) as any non-ASCII unit. */
const TITLE_INVALID =
  /[^ %!"$&'()*,\-./0-9:;=?@A-Z\\^_`a-z~+\u0080-\uFFFF]|%[0-9A-Fa-f]{2}|&[A-Za-z0-9\u0080-\uFFFF]+;|&#[0-9]+;|&#x[0-9A-Fa-f]+;/;
const BIDI = /[\u200E\u200F\u202A-\u202E]/g;
const WHITESPACE = /[ _\u00A0\u1680\u180E\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]+/g;
/** `^(.+?)_*:_*(.*)$` with PCRE's `.` (anything but `\n`) and `$` (end, or before a final `\n`). */
const PREFIX = /^([^\n]+?)_*:_*([^\n]*)\n?$/;

function nsIndex(t: NamespaceTable, prefix: string): number | undefined {
  return t.byName.get(nsKey(prefix));
}

/**
 * MediaWikiTitleCodec::splitTitleString(): normalize and split a title, or throw
 * MalformedTitleError with MediaWiki's reason.
 */
export function parseTitle(text: string, defaultNamespace = NS_MAIN, site: SiteContext = EMPTY_SITE): ParsedTitle {
  const t = table(site);
  let namespace = defaultNamespace;
  let interwiki = '';
  let fragment = '';
  let dbkey = text
    .replace(/ /g, '_')
    .replace(BIDI, '')
    .replace(WHITESPACE, '_')
    .replace(/^_+|_+$/g, '');

  if (dbkey.includes('\uFFFD') || hasLoneSurrogate(dbkey)) throw new MalformedTitleError('title-invalid-utf8', text);

  if (dbkey.startsWith(':')) {
    namespace = NS_MAIN;
    dbkey = dbkey.slice(1).replace(/^_+|_+$/g, '');
  }
  if (dbkey === '') throw new MalformedTitleError('title-invalid-empty', text);

  const m = PREFIX.exec(dbkey);
  if (m) {
    const prefix = m[1]!;
    const ns = nsIndex(t, prefix);
    if (ns !== undefined) {
      dbkey = m[2]!;
      namespace = ns;
      if (ns === NS_TALK) {
        const x = PREFIX.exec(dbkey);
        if (x && (nsIndex(t, x[1]!) || t.interwiki.has(x[1]!.toLowerCase()))) {
          throw new MalformedTitleError('title-invalid-talk-namespace', text);
        }
      }
    } else if (t.interwiki.has(prefix.toLowerCase())) {
      dbkey = m[2]!;
      interwiki = prefix.toLowerCase();
      if (dbkey.startsWith(':')) {
        namespace = NS_MAIN;
        dbkey = dbkey.slice(1);
      }
    }
  }

  const hash = dbkey.indexOf('#');
  if (hash !== -1) {
    fragment = dbkey.slice(hash + 1).replace(/_/g, ' ');
    dbkey = dbkey.slice(0, hash).replace(/_+$/, '');
  }

  if (TITLE_INVALID.test(dbkey)) throw new MalformedTitleError('title-invalid-characters', text);

  if (
    dbkey.includes('.') &&
    (dbkey === '.' ||
      dbkey === '..' ||
      dbkey.startsWith('./') ||
      dbkey.startsWith('../') ||
      dbkey.includes('/./') ||
      dbkey.includes('/../') ||
      dbkey.endsWith('/.') ||
      dbkey.endsWith('/..'))
  ) {
    throw new MalformedTitleError('title-invalid-relative', text);
  }
  if (dbkey.includes('~~~')) throw new MalformedTitleError('title-invalid-magic-tilde', text);
  if (utf8Length(dbkey) > (namespace === NS_SPECIAL ? 512 : 255)) throw new MalformedTitleError('title-invalid-too-long', text);

  if (interwiki === '' && isCapitalized(t, namespace)) dbkey = ucfirst(dbkey);

  if (dbkey === '' && interwiki === '' && namespace !== NS_MAIN) throw new MalformedTitleError('title-invalid-empty', text);

  // IP user names have one canonical form, so `User:::1` and `User:0:0:0:0:0:0:0:1` are one page.
  if (namespace === NS_USER || namespace === NS_USER_TALK) dbkey = sanitizeIP(dbkey);

  if (dbkey.startsWith(':')) throw new MalformedTitleError('title-invalid-leading-colon', text);

  return { namespace, dbkey, interwiki, fragment };
}

function isCapitalized(t: NamespaceTable, namespace: number): boolean {
  if (ALWAYS_CAPITALIZED.has(namespace)) return true;
  // Talk namespaces follow their subject namespace.
  const subject = namespace >= 0 && namespace % 2 === 1 ? namespace - 1 : namespace;
  return !t.caseSensitive.has(subject) && !t.caseSensitive.has(namespace);
}

/** The page name with spaces (Title::getText()). */
export function titleText(title: ParsedTitle): string {
  return title.dbkey.replace(/_/g, ' ');
}

/** Title::getPrefixedText(): `Talk:Foo bar`, `en:Foo` for interwiki titles. */
export function prefixedText(title: ParsedTitle, site: SiteContext = EMPTY_SITE): string {
  let out = title.interwiki ? `${title.interwiki}:` : '';
  if (title.namespace !== NS_MAIN) {
    const name = table(site).names.get(title.namespace);
    // An unknown namespace number cannot come out of parseTitle(); keep the number to be safe.
    out += `${name ?? title.namespace}:`;
  }
  return out + titleText(title);
}

/** The HTML entities decoded here; others are left alone, and then make the title invalid. */
const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00A0' };

function validCodePoint(cp: number): boolean {
  return (
    cp === 0x09 ||
    cp === 0x0a ||
    cp === 0x0d ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

/**
 * Sanitizer::decodeCharReferencesAndNormalize(), as Title::newFromText() applies it: numeric
 * character references and a few named ones decoded, then Unicode NFC.
 */
export function decodeCharReferences(text: string): string {
  const decoded = text.replace(
    /&([A-Za-z0-9\u0080-\uFFFF]+);|&#([0-9]+);|&#[xX]([0-9A-Fa-f]+);/g,
    (all, name: string | undefined, dec: string | undefined, hex: string | undefined) => {
      if (name !== undefined) return ENTITIES[name] ?? all;
      const cp = dec !== undefined ? Number.parseInt(dec, 10) : Number.parseInt(hex!, 16);
      return validCodePoint(cp) ? String.fromCodePoint(cp) : '\uFFFD';
    },
  );
  return decoded.normalize('NFC');
}

export const titleDef: TypeDef = {
  validate(value, _settings, ctx) {
    try {
      // Whether the page exists (mustExist) is the wiki's to say; the server checks it.
      return prefixedText(parseTitle(decodeCharReferences(value), NS_MAIN, ctx.site), ctx.site);
    } catch (e) {
      if (!(e instanceof MalformedTitleError)) throw e;
      return ctx.fail('badtitle', `Invalid title "${value}" for parameter "${ctx.param}" (${e.reason}).`);
    }
  },
};
