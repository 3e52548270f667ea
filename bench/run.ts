/** `npm run bench`: every benchmark, each as ratios against a baseline measured in the same run. */
import { benchHttp } from './http.js';
import { benchWiki } from './wiki.js';

console.log(`node ${process.version}, ${process.platform}/${process.arch}\n`);
await benchHttp();
console.log();
await benchWiki();
