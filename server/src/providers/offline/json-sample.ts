import type { JSONSchema7, JSONSchema7Definition, JSONValue } from '@ai-sdk/provider';
import { sampleRegex } from './regex-sample.js';
import { intBetween, pick, type Rng } from './seeded-random.js';
import { phrase, sentence } from './text.js';

/**
 * Draws a plausible value that satisfies a JSON Schema (draft 7, as the AI SDK sends in
 * `responseFormat`): required and most optional properties, arrays of one to three items within
 * `minItems`/`maxItems`, enums, consts, numeric bounds and `multipleOf`, string lengths, formats and
 * patterns, local `$ref`s, `allOf`/`anyOf`/`oneOf`. Strings are sentences or titles about `words`
 * (the question's keywords), chosen by the property's name.
 */
export function sampleJson(schema: JSONSchema7Definition, rng: Rng, words: readonly string[]): JSONValue {
  return new Sampler(schema, rng, words).value(schema, undefined, 0);
}

/** Below this depth optional properties may appear and arrays hold several items. */
const RICH_DEPTH = 8;
/** A recursive schema whose recursion is required cannot be satisfied past this depth. */
const MAX_DEPTH = 24;
const OPTIONAL_PROPERTY_CHANCE = 0.75;

type Schema = JSONSchema7;

class Sampler {
  constructor(
    private readonly root: JSONSchema7Definition,
    private readonly rng: Rng,
    private readonly words: readonly string[],
  ) {}

  value(def: JSONSchema7Definition, hint: string | undefined, depth: number): JSONValue {
    if (depth > MAX_DEPTH || def === false) return null;
    if (def === true) return this.string({}, hint);
    let s = this.resolve(def);
    if (s.const !== undefined) return s.const as JSONValue;
    if (s.enum) return pick(this.rng, s.enum) as JSONValue;
    if (s.allOf) {
      const { allOf, ...rest } = s;
      s = allOf.map((part) => (part === true || part === false ? {} : this.resolve(part))).reduce(mergeSchemas, rest);
    }
    const branches = s.anyOf ?? s.oneOf;
    if (branches) {
      const { anyOf: _a, oneOf: _o, ...rest } = s;
      const usable = branches.filter((b) => b !== false && (b === true || !isNullOnly(this.resolve(b))));
      const branch = usable.length > 0 ? pick(this.rng, usable) : branches[0]!;
      return this.value(branch === true ? rest : mergeSchemas(rest, this.resolve(branch as Schema)), hint, depth);
    }
    switch (typeOf(s)) {
      case 'object':
        return this.object(s, hint, depth);
      case 'array':
        return this.array(s, hint, depth);
      case 'integer':
        return this.number(s, true);
      case 'number':
        return this.number(s, false);
      case 'boolean':
        return this.rng() < 0.5;
      case 'null':
        return null;
      default:
        return this.string(s, hint);
    }
  }

  /** Follows local `$ref`s (`#/definitions/X`, `#/$defs/X`, any JSON pointer into the root). */
  private resolve(s: Schema, seen = new Set<string>()): Schema {
    if (s.$ref === undefined) return s;
    if (!s.$ref.startsWith('#') || seen.has(s.$ref)) throw new Error(`cannot resolve $ref ${s.$ref}`);
    seen.add(s.$ref);
    let target: unknown = this.root;
    for (const raw of s.$ref.slice(1).split('/').filter(Boolean)) {
      const key = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
      target = (target as Record<string, unknown> | undefined)?.[key];
    }
    if (target === undefined || typeof target === 'boolean') throw new Error(`cannot resolve $ref ${s.$ref}`);
    const { $ref: _ref, ...siblings } = s;
    return mergeSchemas(this.resolve(target as Schema, seen), siblings);
  }

  private object(s: Schema, hint: string | undefined, depth: number): JSONValue {
    const props = s.properties ?? {};
    const required = new Set(s.required ?? []);
    const out: Record<string, JSONValue> = {};
    const extra = typeof s.additionalProperties === 'object' ? s.additionalProperties : true;
    for (const [key, sub] of Object.entries(props)) {
      if (required.has(key) || (depth < RICH_DEPTH && this.rng() < OPTIONAL_PROPERTY_CHANCE))
        out[key] = this.value(sub, key, depth + 1);
    }
    for (const key of required) if (!(key in out)) out[key] = this.value(extra, key, depth + 1);
    const spare = Object.keys(props).filter((k) => !(k in out));
    for (let n = 1; Object.keys(out).length < (s.minProperties ?? 0); n++) {
      const key = spare.shift();
      if (key !== undefined) out[key] = this.value(props[key]!, key, depth + 1);
      else if (s.additionalProperties === false) break;
      else out[`${hint ?? 'field'}${n}`] = this.value(extra, hint, depth + 1);
    }
    const optional = Object.keys(out).filter((k) => !required.has(k));
    while (s.maxProperties !== undefined && Object.keys(out).length > s.maxProperties && optional.length > 0) {
      delete out[optional.pop()!];
    }
    return out;
  }

  private array(s: Schema, hint: string | undefined, depth: number): JSONValue {
    const min = s.minItems ?? 0;
    const max = s.maxItems ?? Number.POSITIVE_INFINITY;
    const itemHint = hint?.replace(/(ies|s)$/, (m) => (m === 'ies' ? 'y' : ''));
    if (Array.isArray(s.items)) {
      const out = s.items.map((item) => this.value(item, itemHint, depth + 1));
      const rest = s.additionalItems ?? true;
      while (out.length < min) out.push(this.value(rest, itemHint, depth + 1));
      return out;
    }
    const item = s.items ?? true;
    const target = Math.min(Math.max(depth < RICH_DEPTH ? intBetween(this.rng, 1, 3) : 0, min), max);
    const out: JSONValue[] = [];
    const seen = new Set<string>();
    for (let attempt = 0; out.length < target && attempt < target * 20; attempt++) {
      const v = this.value(item, itemHint, depth + 1);
      const key = JSON.stringify(v);
      // Repeats look broken ([2, 2]); allow them only when uniqueItems is off and the domain runs dry.
      if (seen.has(key) && (s.uniqueItems || attempt < target * 10)) continue;
      seen.add(key);
      out.push(v);
    }
    return out;
  }

  private number(s: Schema, integer: boolean): number {
    const loose = s as Schema & { exclusiveMinimum?: number | boolean; exclusiveMaximum?: number | boolean };
    const step = integer ? 1 : 0;
    let lo = s.minimum ?? Number.NEGATIVE_INFINITY;
    let hi = s.maximum ?? Number.POSITIVE_INFINITY;
    // Draft 7 exclusive bounds are numbers; draft 4's are booleans beside minimum/maximum.
    const exLo = typeof loose.exclusiveMinimum === 'number' ? loose.exclusiveMinimum : loose.exclusiveMinimum ? lo : undefined;
    const exHi = typeof loose.exclusiveMaximum === 'number' ? loose.exclusiveMaximum : loose.exclusiveMaximum ? hi : undefined;
    if (exLo !== undefined) lo = Math.max(lo, exLo + step);
    if (exHi !== undefined) hi = Math.min(hi, exHi - step);
    if (!Number.isFinite(lo) && !Number.isFinite(hi)) [lo, hi] = [0, 100];
    else if (!Number.isFinite(hi)) hi = lo + 100;
    else if (!Number.isFinite(lo)) lo = hi - 100;
    if (s.multipleOf !== undefined && s.multipleOf > 0) {
      const m = s.multipleOf;
      const k = intBetween(this.rng, Math.ceil(lo / m), Math.floor(hi / m));
      return Number((k * m).toFixed(decimals(m)));
    }
    if (integer) return intBetween(this.rng, Math.ceil(lo), Math.floor(hi));
    let v = Number((lo + this.rng() * (hi - lo)).toFixed(2));
    if (v < lo || v > hi || v === exLo || v === exHi) v = (lo + hi) / 2;
    return v;
  }

  private string(s: Schema, hint: string | undefined): string {
    const formatted = s.format === undefined ? undefined : this.format(s.format);
    if (formatted !== undefined) return formatted;
    const text = this.text(hint);
    const min = s.minLength ?? 0;
    const max = s.maxLength ?? Number.POSITIVE_INFINITY;
    if (s.pattern === undefined) return this.fit(text, min, max);
    const regex = new RegExp(s.pattern, 'u');
    const fits = (c: string) => regex.test(c) && length(c) >= min && length(c) <= max;
    const candidates = [text, slug(text), ...this.words, ...this.words.map(slug)];
    const meaningful = candidates.find(fits);
    if (meaningful !== undefined) return meaningful;
    for (let i = 0; i < 8; i++) {
      const drawn = sampleRegex(s.pattern, this.rng);
      if (drawn !== undefined && fits(drawn)) return drawn;
    }
    return this.fit(text, min, max);
  }

  /** A string chosen by the property's name: a title for `title`, a sentence for `rationale`. */
  private text(hint: string | undefined): string {
    const h = hint?.toLowerCase() ?? '';
    if (/title|name|label|heading|topic|subject|headline|model|provider/.test(h)) return phrase(this.rng, this.words);
    if (/(^|_)id$|slug|key$|code$/.test(h) || /Id$/.test(hint ?? '')) return slug(phrase(this.rng, this.words));
    if (/summary|answer|overview|conclusion/.test(h))
      return `${sentence(this.rng, this.words)} ${sentence(this.rng, this.words)}`;
    return sentence(this.rng, this.words);
  }

  /** Pads with sentences or cuts at a word boundary to meet minLength/maxLength. */
  private fit(text: string, min: number, max: number): string {
    let out = text;
    while (length(out) < min) out = `${out} ${sentence(this.rng, this.words)}`;
    if (length(out) <= max) return out;
    const cut = Array.from(out).slice(0, max).join('');
    const atWord = cut.replace(/\s+\S*$/, '').trimEnd();
    return length(atWord) >= min && atWord.length > 0 ? atWord : cut;
  }

  private format(format: string): string | undefined {
    const day = new Date(
      Date.UTC(2025, 0, 1) + intBetween(this.rng, 0, 364) * 86_400_000 + intBetween(this.rng, 0, 86_399) * 1000,
    );
    const iso = day.toISOString().replace('.000', '');
    const name = slug(this.words[0] ?? 'offline');
    const hex = (n: number) => Array.from({ length: n }, () => intBetween(this.rng, 0, 15).toString(16)).join('');
    const formats: Record<string, () => string> = {
      'date-time': () => iso,
      date: () => iso.slice(0, 10),
      time: () => iso.slice(11),
      email: () => `${name}@example.com`,
      'idn-email': () => `${name}@example.com`,
      uri: () => `https://example.com/${name}`,
      url: () => `https://example.com/${name}`,
      iri: () => `https://example.com/${name}`,
      'uri-reference': () => `/${name}`,
      'iri-reference': () => `/${name}`,
      hostname: () => `${name}.example.com`,
      'idn-hostname': () => `${name}.example.com`,
      ipv4: () => `192.0.2.${intBetween(this.rng, 1, 254)}`,
      ipv6: () => `2001:db8::${hex(4)}`,
      uuid: () => `${hex(8)}-${hex(4)}-4${hex(3)}-${pick(this.rng, ['8', '9', 'a', 'b'])}${hex(3)}-${hex(12)}`,
      duration: () => `PT${intBetween(this.rng, 1, 59)}M`,
    };
    return formats[format]?.();
  }
}

function typeOf(s: Schema): string {
  if (Array.isArray(s.type)) return s.type.find((t) => t !== 'null') ?? 'null';
  if (s.type !== undefined) return s.type;
  if (s.properties || s.required || s.additionalProperties !== undefined) return 'object';
  if (s.items !== undefined || s.minItems !== undefined) return 'array';
  if (s.minimum !== undefined || s.maximum !== undefined || s.multipleOf !== undefined) return 'number';
  return 'string';
}

function isNullOnly(s: Schema): boolean {
  return s.type === 'null' || (Array.isArray(s.type) && s.type.every((t) => t === 'null'));
}

/** Combines two schemas that both apply (allOf, or a $ref with sibling keywords). */
function mergeSchemas(a: Schema, b: Schema): Schema {
  const out: Schema = { ...a, ...b };
  if (a.properties || b.properties) out.properties = { ...a.properties, ...b.properties };
  if (a.required || b.required) out.required = [...new Set([...(a.required ?? []), ...(b.required ?? [])])];
  if (a.type !== undefined && b.type === undefined) out.type = a.type;
  return out;
}

function length(s: string): number {
  return Array.from(s).length;
}

function decimals(n: number): number {
  const text = String(n);
  return text.includes('e-') ? Number(text.split('e-')[1]) : (text.split('.')[1]?.length ?? 0);
}

/** "Review caching and latency" → "review-caching-and-latency". */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
