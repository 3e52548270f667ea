/**
 * `npm run bench [-- <name>…] [--update-readme]`: every benchmark (or the named ones), each as ratios against a
 * baseline measured in the same run. Each records its headline figures in `bench/results/<name>.json`;
 * `--update-readme` then rewrites the READMEs' figures from those files (`figures.ts`); given alone, it runs
 * no benchmark.
 */
import { benchDebate } from './debate.js';
import { takeRun, updateReadmes, writeRun } from './figures.js';
import { benchFlood } from './flood.js';
import { benchGenerate } from './generate.js';
import { benchGrounding } from './grounding.js';
import { benchHttp } from './http.js';
import { benchMcp } from './mcp.js';
import { benchOpenai } from './openai.js';
import { benchOpenapi } from './openapi.js';
import { benchPanel } from './panel.js';
import { benchPostgres } from './postgres.js';
import { benchProviders } from './providers.js';
import { benchSessions } from './sessions.js';
import { benchSize } from './size.js';
import { benchStorage } from './storage.js';
import { benchTrust } from './trust.js';
import { benchUi } from './ui.js';
import { benchWiki } from './wiki.js';

const BENCHES: Record<string, () => Promise<void>> = {
  http: benchHttp,
  wiki: benchWiki,
  debate: benchDebate,
  panel: benchPanel,
  sessions: benchSessions,
  size: benchSize,
  providers: benchProviders,
  ui: benchUi,
  generate: benchGenerate,
  openapi: benchOpenapi,
  postgres: benchPostgres,
  storage: benchStorage,
  flood: benchFlood,
  grounding: benchGrounding,
  trust: benchTrust,
  mcp: benchMcp,
  openai: benchOpenai,
};
const args = process.argv.slice(2);
const updateReadme = args.includes('--update-readme');
const names = args.filter((a) => a !== '--update-readme');
const unknown = names.filter((n) => !Object.hasOwn(BENCHES, n));
if (unknown.length > 0) {
  console.error(`Unknown benchmark: ${unknown.join(', ')}. Known: ${Object.keys(BENCHES).join(', ')}.`);
  process.exit(2);
}

// The settings a run was made with belong to its command (e.g. BENCH_DATABASE=/dev/shm/… for providers).
const settings = Object.entries(process.env)
  .filter(([k]) => k.startsWith('BENCH_'))
  .map(([k, v]) => `${k}=${v} `)
  .join('');
console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
const toRun = names.length > 0 ? names : updateReadme ? [] : Object.keys(BENCHES);
for (const name of toRun) {
  console.log();
  await BENCHES[name]!();
  const run = takeRun(name, `${settings}npm run bench -- ${name}`);
  writeRun(run);
  console.log(`recorded ${run.figures.length} figures in bench/results/${name}.json`);
}
if (updateReadme) console.log(`\nREADMEs rewritten: ${updateReadmes().join(', ') || 'none (already current)'}`);
