/**
 * The code generator's only door to Node: the few `fs`, `path` and `process` calls the CLI makes,
 * typed here and loaded on demand, so the SDK's build (which has no `@types/node`, as the SDK itself
 * runs anywhere `fetch` does) still type-checks this folder, and nothing outside the CLI loads Node
 * modules.
 */

export interface NodeFs {
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  writeFile(path: string, data: string): Promise<void>;
  mkdir(path: string, options: { recursive: true }): Promise<string | undefined>;
  readdir(path: string): Promise<string[]>;
  rm(path: string, options?: { force?: boolean }): Promise<void>;
  realpath(path: string): Promise<string>;
}

export interface NodePath {
  resolve(...paths: string[]): string;
  join(...paths: string[]): string;
}

export interface NodeProcess {
  argv: string[];
  exitCode?: number | string | undefined;
  cwd(): string;
  stdout: { write(text: string): boolean };
  stderr: { write(text: string): boolean };
}

// A specifier TypeScript does not resolve (it is not a literal), so no Node typings are needed here.
const load = (specifier: string): Promise<unknown> => import(specifier);

export const loadFs = async (): Promise<NodeFs> => (await load('node:fs/promises')) as NodeFs;
export const loadPath = async (): Promise<NodePath> => (await load('node:path')) as NodePath;
export const loadUrl = async (): Promise<{ fileURLToPath(url: string): string }> =>
  (await load('node:url')) as { fileURLToPath(url: string): string };

/** Node's `process`, or `undefined` elsewhere. */
export const nodeProcess = (): NodeProcess | undefined => (globalThis as unknown as { process?: NodeProcess }).process;
