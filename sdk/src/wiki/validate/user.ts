/**
 * `user` (UserDef with UserNameUtils): which of the forms `name`, `ip`, `cidr`, `temp`,
 * `interwiki` and `id` a value has, and its canonical spelling (`adam_smith` → `Adam smith`,
 * `User:::1` → `0:0:0:0:0:0:0:1`). Whether a named account exists is not checked: the server
 * treats unknown names as valid too.
 */
import type { ParamInfo, SiteContext, TypeDef } from '../types.js';
import { isValidIP, isValidRange, sanitizeIP } from './ip.js';
import { ucfirst, utf8Length } from './text.js';
import { MalformedTitleError, NS_MAIN, NS_USER, type ParsedTitle, parseTitle, titleText } from './title.js';

export const USER_SUBTYPES = ['name', 'ip', 'temp', 'cidr', 'interwiki', 'id'] as const;
export type UserSubtype = (typeof USER_SUBTYPES)[number];
const DEFAULT_SUBTYPES: readonly UserSubtype[] = ['name', 'ip', 'temp', 'cidr', 'interwiki'];

/** $wgMaxNameChars. */
const MAX_NAME_BYTES = 255;
const ANY_IPV4 = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.(?:xxx|\d{1,3})$/;
/** Three `RE_IP_BYTE`s then `xxx`; a literal, so a bundle that never reads it can drop it. */
const USEMOD_IP = /^(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|0?[0-9]?[0-9])\.){3}xxx$/;
/** Characters UserNameUtils::isValid() rejects on top of the title rules. */
const TROUBLEMAKERS = /[\u0080-\u009f\u00a0\u2000-\u200f\u2028-\u202f\u3000\ue000-\uf8ff]/;

function tryParse(text: string, ns: number, site: SiteContext): ParsedTitle | undefined {
  try {
    return parseTitle(text, ns, site);
  } catch (e) {
    if (e instanceof MalformedTitleError) return undefined;
    throw e;
  }
}

/** UserNameUtils::isIP(): looks like an IP, including non-addresses such as 300.300.300.300. */
function looksLikeIP(name: string): boolean {
  return isValidIP(name) || ANY_IPV4.test(name);
}

/** UserNameUtils::isValid(). */
export function isValidUserName(name: string, site: SiteContext = {}): boolean {
  if (name === '' || looksLikeIP(name) || name.includes('/') || utf8Length(name) > MAX_NAME_BYTES || name !== ucfirst(name)) {
    return false;
  }
  const title = tryParse(name, NS_MAIN, site);
  if (!title || title.namespace !== NS_MAIN || title.interwiki !== '' || name !== titleText(title)) return false;
  return !TROUBLEMAKERS.test(name);
}

/** UserNameUtils::getCanonical($name, RIGOR_VALID): the canonical valid user name, or undefined. */
export function canonicalUserName(input: string, site: SiteContext = {}): string | undefined {
  const name = ucfirst(input);
  if (name.includes('#')) return undefined;
  const title = tryParse(name, NS_USER, site);
  if (!title || title.namespace !== NS_USER || title.interwiki !== '') return undefined;
  const text = titleText(title);
  return isValidUserName(text, site) ? text : undefined;
}

/** UserNameUtils::getCanonical($name, RIGOR_NONE): capitalized, `User:` prefix dropped, underscores to spaces. */
function canonicalNoValidation(input: string, site: SiteContext): string | undefined {
  let name = ucfirst(input);
  if (name.includes('#')) return undefined;
  const userNs = site.namespaces?.find((ns) => ns.id === NS_USER)?.name ?? 'User';
  const prefix = `${userNs}:`;
  if (name.startsWith(prefix)) name = name.split(prefix).join('');
  return name.replace(/_/g, ' ');
}

/** Whether a canonical name is a temporary account; undefined when the wiki's patterns are unknown. */
function isTempName(name: string, site: SiteContext): boolean | undefined {
  const patterns = site.tempUserPatterns;
  if (!patterns) return undefined;
  return patterns.some((pattern) => {
    const at = pattern.indexOf('$1');
    if (at === -1) return name === pattern;
    const prefix = pattern.slice(0, at);
    const suffix = pattern.slice(at + 2);
    return name.startsWith(prefix) && name.endsWith(suffix) && name.length >= prefix.length + suffix.length;
  });
}

/** A user value's form and canonical spelling; `name-or-temp` when the wiki's temp patterns are unknown. */
export type UserForm = UserSubtype | 'name-or-temp';

/** UserDef::processUser(), without the database: `[form, canonical]`, or undefined for an invalid value. */
export function processUser(value: string, site: SiteContext = {}): [UserForm, string] | undefined {
  // A user ID: which user it is, and whether one exists, is the wiki's to say.
  if (/^#\d+$/.test(value)) return ['id', value];

  // An interwiki (external) user name is kept exactly as given.
  if (value.includes('>')) return canonicalNoValidation(value, site) === undefined ? undefined : ['interwiki', value];

  const canonical = canonicalUserName(value, site);
  if (canonical !== undefined) {
    const temp = isTempName(canonical, site);
    return [temp === undefined ? 'name-or-temp' : temp ? 'temp' : 'name', canonical];
  }

  if (value.includes('#')) return undefined;
  let title = tryParse(value, NS_MAIN, site);
  if (!title || title.namespace !== NS_USER || title.interwiki !== '') title = tryParse(`User:${value}`, NS_MAIN, site);
  if (!title || title.namespace !== NS_USER || title.interwiki !== '') return undefined;
  const text = titleText(title);

  if (isValidIP(text) || USEMOD_IP.test(text)) {
    const name = canonicalNoValidation(sanitizeIP(text), site);
    return name === undefined ? undefined : ['ip', name];
  }
  if (isValidRange(text)) {
    const name = canonicalNoValidation(sanitizeIP(text), site);
    return name === undefined ? undefined : ['cidr', name];
  }
  return undefined;
}

/** PARAM_ALLOWED_USER_TYPES after UserDef::normalizeSettings(). */
function allowedSubtypes(settings: ParamInfo): readonly UserSubtype[] {
  const given = Array.isArray(settings.subtypes) ? settings.subtypes : [];
  const known = USER_SUBTYPES.filter((t) => given.includes(t));
  return known.length ? known : DEFAULT_SUBTYPES;
}

export const userDef: TypeDef = {
  validate(value, settings, ctx) {
    const result = processUser(value, ctx.site);
    const allowed = allowedSubtypes(settings);
    if (result) {
      const [form, name] = result;
      const ok = form === 'name-or-temp' ? allowed.includes('name') || allowed.includes('temp') : allowed.includes(form);
      if (ok) return name;
    }
    return ctx.fail('baduser', `Invalid value "${value}" for user parameter "${ctx.param}".`);
  },
};

/**
 * {@link userDef} for a parameter whose subtypes are `name` and `temp` (the query module's
 * `assertuser`): the same verdict and canonical name, without the forms such a parameter refuses
 * anyway (`id`, `interwiki`, `ip`, `cidr`), so a bundle carries no more of the user validator than
 * it needs. `user.test.ts` proves it equal to `userDef` with those subtypes.
 */
export const nameOrTempUserDef: TypeDef = {
  validate(value, _settings, ctx) {
    // An ID (`#42`) or an interwiki name (`m>Foo`) has no canonical name: `#` and `>` are not in titles.
    return (
      canonicalUserName(value, ctx.site) ?? ctx.fail('baduser', `Invalid value "${value}" for user parameter "${ctx.param}".`)
    );
  },
};
