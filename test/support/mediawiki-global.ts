/**
 * vitest globalSetup: one scratch directory per test run for the MediaWiki of `mediawiki.ts`, which
 * installs and serves the wiki there only when a test asks for it; teardown stops it and cleans up.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    mediawikiDir: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'consilium-mw-run-'));
  project.provide('mediawikiDir', dir);
  return () => stopMediaWiki(dir);
}

/** Stops the run's servers (each one's whole process group: PHP's workers) and removes the wikis. */
function stopMediaWiki(dir: string): void {
  for (const file of [join(dir, 'server.json'), join(dir, 'extensions', 'server.json')]) {
    if (!existsSync(file)) continue;
    const { pid } = JSON.parse(readFileSync(file, 'utf8')) as { pid: number };
    try {
      process.kill(-pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
