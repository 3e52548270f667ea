/**
 * A request as the probes write it (modules with raw values, the page set, the top-level continue), sent to
 * api.php as it stands and built with the builders from paraminfo, and the verdicts both give. Shared by the
 * recorder of `test/fixtures/wiki/rule-verdicts.json` (`record-verdicts.ts`), the live check that the
 * recording is still what the wiki says, and `sdk/src/wiki/rules.test.ts`, which reads the recording.
 */
import { defineModule } from '../../../sdk/src/wiki/module.js';
import { type QueryInput, query } from '../../../sdk/src/wiki/query.js';
import type { BuildOptions, ModuleGroup, ModuleSpec } from '../../../sdk/src/wiki/types.js';
import { WikiParamError } from '../../../sdk/src/wiki/types.js';

export interface RawRequest {
  uses: { module: string; params: Record<string, string>; generator?: true }[];
  titles?: string[];
  pageids?: string[];
  continue?: string;
  redirects?: true;
}

/** The request as api.php gets it. */
export function wireOf(request: RawRequest, specs: ReadonlyMap<string, ModuleSpec>): Record<string, string> {
  const out: Record<string, string> = { action: 'query', format: 'json', formatversion: '2', errorformat: 'plaintext' };
  if (request.titles) out.titles = request.titles.join('|');
  if (request.pageids) out.pageids = request.pageids.join('|');
  if (request.continue !== undefined) out.continue = request.continue;
  if (request.redirects) out.redirects = '1';
  for (const u of request.uses) {
    const spec = specs.get(u.module)!;
    if (u.generator) out.generator = u.module;
    else out[spec.group] = out[spec.group] ? `${out[spec.group]}|${u.module}` : u.module;
    for (const [k, v] of Object.entries(u.params)) out[(u.generator ? 'g' : '') + spec.prefix + k] = v;
  }
  return out;
}

/** A verdict: the first error's code (or `ok`) and, with `warnings`, every warning's code and module in order. */
export function verdictOf(
  error: string | undefined,
  warnings: readonly { code: string; module?: string | undefined }[],
  withWarnings: boolean,
): string {
  const head = error ?? 'ok';
  if (!withWarnings) return head;
  return `${head} [${warnings.map((w) => `${w.code}@${(w.module ?? '').replace(/^query\+/, '')}`).join(' ')}]`;
}

/** The API's verdict on its JSON answer. */
export function apiVerdictOf(response: Record<string, unknown>, withWarnings: boolean): string {
  const errors = Array.isArray(response.errors) ? (response.errors as { code: string }[]) : [];
  const warnings = Array.isArray(response.warnings) ? (response.warnings as { code: string; module: string }[]) : [];
  return verdictOf(errors[0]?.code, warnings, withWarnings);
}

/** The builders' verdict: modules made from paraminfo with `defineModule()` (the SDK's rules matched), as a user's. */
export function builderVerdictOf(
  request: RawRequest,
  specs: ReadonlyMap<string, ModuleSpec>,
  options: BuildOptions,
  withWarnings: boolean,
): string {
  const input: Record<string, unknown> = {};
  if (request.titles) input.titles = request.titles;
  if (request.pageids) input.pageids = request.pageids.map(Number);
  if (request.continue !== undefined) input.continue = { continue: request.continue };
  if (request.redirects) input.redirects = true;
  for (const u of request.uses) {
    const spec = specs.get(u.module)!;
    const module = defineModule<Record<string, unknown>, ModuleGroup, true>(spec);
    if (u.generator) input.generator = module.asGenerator(u.params);
    else input[spec.group] = [...((input[spec.group] as unknown[]) ?? []), module(u.params)];
  }
  try {
    return verdictOf(undefined, query(input as QueryInput, options).warnings, withWarnings);
  } catch (e) {
    if (e instanceof WikiParamError) return verdictOf(e.code, e.warnings, withWarnings);
    return `threw ${(e as Error).name}: ${(e as Error).message}`;
  }
}
