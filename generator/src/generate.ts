import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { contractPath, loadContract } from './contract.js';
import { generatePathTypes } from './paths.js';
import { emitRoutes } from './routes.js';
import { generateSdk } from './sdk.js';

/** Every folder that generation owns, relative to the repository root. */
export const GENERATED_FOLDERS = ['sdk/src/generated', 'server/src/generated', 'test/generated'] as const;

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** Writes all generated code under `root` (the repository, or a scratch copy of its layout). */
export async function generateAll(root: string, contractFile = contractPath): Promise<readonly string[]> {
  for (const folder of GENERATED_FOLDERS) rmSync(join(root, folder), { recursive: true, force: true });
  const doc = loadContract(contractFile);
  await generateSdk(contractFile, join(root, 'sdk/src/generated'));
  write(join(root, 'server/src/generated/routes.ts'), emitRoutes(doc, '../../../sdk/src/generated/zod.gen.js'));
  write(join(root, 'test/generated/openapi-paths.ts'), await generatePathTypes(contractFile));
  return GENERATED_FOLDERS;
}
