import { Worker } from 'node:worker_threads';
import { doNotEditHeader } from './contract.js';

/**
 * hey-api's two jobs over one parsed contract:
 * - the SDK (`sdk/src/generated/`): fetch client, types, SDK functions with response validation, and
 *   zod schemas in zod's tree-shakable `zod/mini` form, so a consumer's bundle carries only the
 *   validators it uses;
 * - the server's schemas (`server/src/generated/schemas/`): full zod with metadata, which
 *   `@hono/zod-openapi` needs to serve the contract back.
 */
function heyApiConfigs(contract: object, sdkDir: string, serverSchemasDir: string): object[] {
  const output = (path: string) => ({
    path,
    header: doNotEditHeader('openapi/openapi.yaml via @hey-api/openapi-ts'),
    // Explicit, so output does not depend on which tsconfig hey-api happens to find.
    module: { extension: '.js' },
  });
  return [
    {
      input: contract,
      output: output(sdkDir),
      plugins: [
        '@hey-api/client-fetch',
        '@hey-api/typescript',
        { name: 'zod', compatibilityVersion: 'mini' },
        // Responses (and SSE events) are validated; requests are not: the server is the one authority on
        // input and answers every bad request with a problem listing each field.
        { name: '@hey-api/sdk', validator: { request: false, response: true } },
      ],
      logs: { level: 'silent' },
    },
    {
      input: contract,
      output: output(serverSchemasDir),
      plugins: [{ name: 'zod', metadata: true }],
      logs: { level: 'silent' },
    },
  ];
}

/**
 * hey-api's default client (used by a generated function called without `client`), with its streams made to
 * fail as `createConsiliumClient`'s do (`sdk/src/streams.ts`): hey-api's own reports a refused stream only to
 * `onSseError` and ends it silently. hey-api has no hook that wraps the client it creates
 * (`runtimeConfigPath` only supplies its config), so the one line that creates it is rewritten here; a
 * hey-api that writes it differently fails generation rather than shipping the silent client.
 */
export function withTypedStreams(clientModule: string): string {
  const creation = /^export const client = (createClient\(.*\));$/m;
  const found = clientModule.match(new RegExp(creation.source, 'gm')) ?? [];
  if (found.length !== 1)
    throw new Error(`client.gen.ts: expected one \`export const client = createClient(…);\`, found ${found.length}`);
  const imports = /^import .*;\n(?!import )/m;
  if (!imports.test(clientModule)) throw new Error('client.gen.ts: no import block to extend');
  return clientModule
    .replace(creation, 'export const client = typedStreams($1);')
    .replace(imports, (last) => `${last}import { typedStreams } from '../streams.js';\n`);
}

/** The worker's script. */
const heyApiWorkerUrl = new URL('./hey-api-worker.mjs', import.meta.url);

/** A hey-api worker, started before the contract is parsed so its import overlaps the main thread's work. */
export interface HeyApiWorker {
  /** Sends the jobs; resolves once both outputs are written. */
  run(contract: object, sdkDir: string, serverSchemasDir: string): Promise<void>;
  /** Ends the worker without running it (generation failed before `run`). */
  stop(): void;
}

/**
 * Spawns the worker. A worker inherits the parent's flags, `--import tsx` among them, and tsx's
 * loader would then see every one of hey-api's imports for nothing (the worker is plain JavaScript):
 * the flags are passed on without tsx (so `--cpu-prof` and the like still apply).
 */
export function startHeyApi(
  /** The worker on `hey-api-worker.mjs`, if spawned already (`generator/run.mjs` does, before loading tsx). */
  worker = new Worker(heyApiWorkerUrl, { execArgv: withoutTsx(process.execArgv) }),
): HeyApiWorker {
  const done = new Promise<void>((resolve, reject) => {
    worker.once('message', (message: { ok: boolean; error?: string }) => {
      void worker.terminate();
      if (message.ok) resolve();
      else reject(new Error(`hey-api failed: ${message.error}`));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (code !== 0 && code !== 1) reject(new Error(`hey-api worker exited with ${code}`));
      else reject(new Error('hey-api worker ended before writing its output'));
    });
  });
  done.catch(() => {}); // awaited by run(); no unhandled rejection when stopped
  return {
    run(contract, sdkDir, serverSchemasDir) {
      worker.postMessage({ configs: heyApiConfigs(contract, sdkDir, serverSchemasDir) });
      return done;
    },
    stop: () => void worker.terminate(),
  };
}

/** Node flags without those that load tsx (`--import tsx`, `--import=tsx`, `--require tsx/cjs`, …). */
export function withoutTsx(flags: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i]!;
    const loads = /^--(?:import|require|loader|experimental-loader)$/.test(flag) || flag === '-r';
    if (loads && /^tsx(?:\/|$)/.test(flags[i + 1] ?? '')) {
      i++;
      continue;
    }
    if (/^--(?:import|require|loader|experimental-loader)=tsx(?:\/|$)/.test(flag)) continue;
    out.push(flag);
  }
  return out;
}
