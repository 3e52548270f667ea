/** `npm run docs`' SDK reference: rebuilt whole (`sdk-reference.ts`), or an exit code of 1 saying why not. */
import { fileURLToPath } from 'node:url';
import { claimSdkReferenceBuild, lockHolder, sdkReferenceDir } from './sdk-build.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const build = claimSdkReferenceBuild({ root, force: true });
if (!build) {
  console.error(`docs: another process (pid ${lockHolder(sdkReferenceDir(root))}) is building the SDK reference`);
  process.exit(1);
}
const running = build.start();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => running.stop());
const result = await running.done;
if (result !== true) {
  console.error(`docs: the SDK reference is not built: ${result}`);
  process.exit(1);
}
