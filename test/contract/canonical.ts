/**
 * Canonical form of an OpenAPI document, for comparing the contract with what the server serves.
 * Only differences that mean nothing are removed: key order, the order of the sets `required`,
 * `enum` and `type`, a parameter's `required: false` (the default), and empty `webhooks` or
 * component groups. Everything else (descriptions, examples, bounds) must match exactly.
 */
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const SET_KEYS = new Set(['required', 'enum', 'type']);

function sortDeep(value: Json, key?: string): Json {
  if (Array.isArray(value)) {
    const items = value.map((v) => sortDeep(v));
    return key !== undefined && SET_KEYS.has(key)
      ? [...items].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
      : items;
  }
  if (value !== null && typeof value === 'object') {
    const out: { [key: string]: Json } = {};
    for (const k of Object.keys(value).sort()) {
      const v = sortDeep(value[k] as Json, k);
      out[k] = v;
    }
    return out;
  }
  return value;
}

type JsonObject = { [key: string]: Json };
const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v);
const isEmpty = (v: unknown) => isObject(v) && Object.keys(v).length === 0;

function canonicalize(doc: unknown): Json {
  const copy = structuredClone(doc) as JsonObject;
  if (isEmpty(copy.webhooks)) delete copy.webhooks;
  const components = copy.components;
  if (isObject(components)) {
    for (const [group, entries] of Object.entries(components)) if (isEmpty(entries)) delete components[group];
  }
  for (const item of Object.values(isObject(copy.paths) ? copy.paths : {})) {
    for (const operation of Object.values(isObject(item) ? item : {})) {
      const parameters = isObject(operation) ? operation.parameters : undefined;
      for (const p of Array.isArray(parameters) ? parameters : []) if (isObject(p) && p.required === false) delete p.required;
    }
  }
  return sortDeep(copy);
}

/** Paths (JSON-pointer-like) where two canonical documents differ; empty when they agree. */
export function diffDocuments(expected: unknown, actual: unknown): string[] {
  const out: string[] = [];
  const walk = (a: Json | undefined, b: Json | undefined, path: string) => {
    if (JSON.stringify(a) === JSON.stringify(b)) return;
    if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
      for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
        walk(a[k], b[k], `${path}/${k.replaceAll('~', '~0').replaceAll('/', '~1')}`);
      return;
    }
    if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
      for (const [i, item] of a.entries()) walk(item, b[i], `${path}/${i}`);
      return;
    }
    out.push(`${path || '/'}: expected ${JSON.stringify(a)?.slice(0, 160)}, served ${JSON.stringify(b)?.slice(0, 160)}`);
  };
  walk(canonicalize(expected), canonicalize(actual), '');
  return out;
}
