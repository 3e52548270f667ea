/**
 * Writes the SDK reference (`docs/api/sdk/`, typedoc with `docs/typedoc.json`), which the server serves at
 * `/docs/sdk/`. `npm run docs` runs typedoc itself; `npm start` calls this when the reference is not built yet.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const SDK_REFERENCE_DIR = join(root, 'docs/api/sdk');

export function buildSdkReference(): void {
  const typedoc = join(root, 'node_modules/.bin/typedoc');
  const run = spawnSync(typedoc, ['--options', join(root, 'docs/typedoc.json'), '--logLevel', 'Warn'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (run.status !== 0)
    throw new Error(`typedoc failed (${run.error?.message ?? `exit ${run.status}`}): the SDK reference is not built`);
}
