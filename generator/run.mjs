// `npm run generate` (and `generate:check`). Plain JavaScript, so it can spawn hey-api's worker (the
// longest part: importing hey-api and TypeScript) before anything else, then load the TypeScript
// generator through tsx's API: tsx's start-up and the generator's own imports overlap the worker's.
// Nothing is precompiled: a fresh clone runs it as is. `node --import tsx generator/src/cli.ts` works too.
import { Worker } from 'node:worker_threads';

const worker = new Worker(new URL('./src/hey-api-worker.mjs', import.meta.url), { execArgv: process.execArgv });
const { tsImport } = await import('tsx/esm/api');
const { main } = await tsImport('./src/cli.ts', import.meta.url);
process.exitCode = await main(process.argv.slice(2), worker);
