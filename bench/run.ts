/** `npm run bench [-- http|wiki|debate|sessions|size|providers|ui|generate]`: every benchmark (or the named ones), each as ratios against a baseline measured in the same run. */
import { benchDebate } from './debate.js';
import { benchGenerate } from './generate.js';
import { benchHttp } from './http.js';
import { benchProviders } from './providers.js';
import { benchSessions } from './sessions.js';
import { benchSize } from './size.js';
import { benchUi } from './ui.js';
import { benchWiki } from './wiki.js';

const BENCHES: Record<string, () => Promise<void>> = {
  http: benchHttp,
  wiki: benchWiki,
  debate: benchDebate,
  sessions: benchSessions,
  size: benchSize,
  providers: benchProviders,
  ui: benchUi,
  generate: benchGenerate,
};
const names = process.argv.slice(2);
const unknown = names.filter((n) => !Object.hasOwn(BENCHES, n));
if (unknown.length > 0) {
  console.error(`Unknown benchmark: ${unknown.join(', ')}. Known: ${Object.keys(BENCHES).join(', ')}.`);
  process.exit(2);
}

console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
for (const name of names.length > 0 ? names : Object.keys(BENCHES)) {
  console.log();
  await BENCHES[name]!();
}
