/**
 * `wiki_query`: a MediaWiki query built by the SDK's typed builders (one per module) against a configured wiki source
 * and run through its `WikiClient`. The builders validate every parameter as MediaWiki would: a value it would refuse
 * comes back as a tool error naming the parameter and MediaWiki's code, before any request is sent.
 */
import { z } from 'zod';
import * as wikiModules from '../../../sdk/src/generated/wiki/index.js';
import { WikiApiError } from '../../../sdk/src/wiki/client.js';
import { type QueryInput, query } from '../../../sdk/src/wiki/query.js';
import { WikiParamError } from '../../../sdk/src/wiki/types.js';
import { WikiReadError } from '../grounding/wiki-source.js';
import type { Register } from './context.js';
import { type FieldError, structured, toolError } from './results.js';

const GROUPS = ['list', 'prop', 'meta'] as const;

const moduleUse = z.strictObject({
  module: z.string().describe('The module’s name: allpages, search, revisions, categorymembers, siteinfo, …'),
  params: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Its parameters, unprefixed (`limit`, not `aplimit`), as MediaWiki documents them.'),
});

export const wikiQueryInput = z.strictObject({
  source: z.string().describe('A configured wiki source (see consilium://sources).'),
  list: z.array(moduleUse).max(10).optional(),
  prop: z.array(moduleUse).max(10).optional(),
  meta: z.array(moduleUse).max(10).optional(),
  generator: moduleUse.optional().describe('At most one: a list or prop module whose pages the prop modules read.'),
  titles: z.array(z.string()).max(50).optional(),
  pageids: z.array(z.number().int()).max(50).optional(),
  revids: z.array(z.number().int()).max(50).optional(),
  redirects: z.boolean().optional(),
  continue: z
    .record(z.string(), z.union([z.string(), z.number()]))
    .optional()
    .describe('The previous answer’s `continue`, for the next batch.'),
});

const wikiQueryOutput = z.object({
  source: z.string(),
  params: z.record(z.string(), z.string()).describe('The parameters sent to api.php.'),
  query: z.record(z.string(), z.unknown()),
  warnings: z.array(z.object({ code: z.string(), text: z.string(), module: z.string().optional() })),
  continue: z.record(z.string(), z.string()).optional().describe('Pass back as `continue` for more.'),
});

type Builder = ((params: object) => unknown) & {
  spec: { group: string; name: string };
  asGenerator?: (params: object) => unknown;
};

/** The generated builder named `name`, if it is one. */
function builderOf(name: string): Builder | undefined {
  const found = Object.hasOwn(wikiModules, name) ? (wikiModules as Record<string, unknown>)[name] : undefined;
  return typeof found === 'function' && 'spec' in found ? (found as Builder) : undefined;
}

type Args = z.infer<typeof wikiQueryInput>;

/** The query's input from the tool's arguments, or the fields that name no module of their group. */
function inputOf(args: Args): { input: QueryInput } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  const input: Record<string, unknown> = {};
  for (const group of GROUPS) {
    const uses = args[group];
    if (!uses) continue;
    input[group] = uses.map((use, i) => {
      const builder = builderOf(use.module);
      if (builder?.spec.group !== group) {
        errors.push({ field: `${group}[${i}].module`, message: `"${use.module}" is no ${group} module`, code: 'badvalue' });
        return undefined;
      }
      return builder(use.params ?? {});
    });
  }
  if (args.generator) {
    const builder = builderOf(args.generator.module);
    if (!builder?.asGenerator) {
      errors.push({ field: 'generator.module', message: `"${args.generator.module}" cannot be a generator`, code: 'badvalue' });
    } else input.generator = builder.asGenerator(args.generator.params ?? {});
  }
  for (const key of ['titles', 'pageids', 'revids', 'redirects', 'continue'] as const) {
    if (args[key] !== undefined) input[key] = args[key];
  }
  return errors.length > 0 ? { errors } : { input: input as QueryInput };
}

export const registerWikiTool: Register = (server, ctx) => {
  server.registerTool(
    'wiki_query',
    {
      title: 'Query a wiki',
      description:
        'Run a MediaWiki Action API query (action=query) on a configured wiki source: `list`, `prop`, `meta` modules with their parameters, a `generator`, `titles`. Parameters are validated as MediaWiki would before anything is sent. Read-only.',
      inputSchema: wikiQueryInput,
      outputSchema: wikiQueryOutput,
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async (args, extra) => {
      const source = ctx.runs.wikis?.source(args.source);
      if (!source) {
        const known = ctx.runs.wikis?.names.join(', ') || 'none';
        return toolError('unknown_wiki_source', `No wiki source is named "${args.source}"; configured: ${known}.`, [
          { field: 'source', message: 'not configured' },
        ]);
      }
      const built = inputOf(args);
      if ('errors' in built) return toolError('validation_failed', 'The query names modules that do not fit.', built.errors);
      try {
        // The builders' own check, with no site context: what they refuse is refused before any request.
        query(built.input);
        const batch = await source.query(built.input, extra.signal);
        return structured({
          source: args.source,
          params: batch.params,
          query: batch.query,
          warnings: batch.warnings.map((w) => ({
            code: w.code,
            text: w.text,
            ...(w.module !== undefined && { module: w.module }),
          })),
          ...(batch.continue && { continue: batch.continue }),
        });
      } catch (error) {
        if (error instanceof WikiParamError) {
          return toolError(error.code, error.message, [{ field: error.param, message: error.message, code: error.code }]);
        }
        if (error instanceof WikiApiError) return toolError(error.code, error.info);
        if (error instanceof WikiReadError) return toolError(error.code, error.message);
        throw error;
      }
    },
  );
};
