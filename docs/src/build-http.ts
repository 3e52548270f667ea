/**
 * Writes the HTTP reference (`docs/api/http/index.html`, `reference.css` and `search.js`) from the contract.
 * `npm run docs` runs it; `npm start` runs it when the reference is not built yet.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { renderHttpReference } from './http-reference.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const HTTP_REFERENCE_DIR = join(root, 'docs/api/http');

/** Writes both files (each through a temporary file, so a server never serves half of one). */
export function buildHttpReference(
  contractFile = join(root, 'openapi/openapi.yaml'),
  outDir = HTTP_REFERENCE_DIR,
): { operations: string[] } {
  const { html, css, js, operations } = renderHttpReference(parse(readFileSync(contractFile, 'utf8')));
  mkdirSync(outDir, { recursive: true });
  for (const [name, text] of [
    ['reference.css', css],
    ['search.js', js],
    ['index.html', html],
  ] as const) {
    const temporary = join(outDir, `${name}.${process.pid}.tmp`);
    writeFileSync(temporary, text);
    renameSync(temporary, join(outDir, name));
  }
  return { operations };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { operations } = buildHttpReference();
  console.log(`docs: HTTP reference with ${operations.length} operations in ${HTTP_REFERENCE_DIR}`);
}
