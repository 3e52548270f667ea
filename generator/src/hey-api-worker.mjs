// Runs hey-api's jobs off the main thread, so the main thread can emit the routes, the wiki modules
// and openapi-typescript's `paths` meanwhile (importing hey-api alone takes ~1 s of CPU). Plain
// JavaScript: a worker does not inherit tsx's loader.
import { parentPort, workerData } from 'node:worker_threads';
import { createClient } from '@hey-api/openapi-ts';

try {
  // One job at a time: hey-api's jobs share state, and the second one reuses the first one's warm-up.
  for (const config of workerData.configs) await createClient(config);
  parentPort.postMessage({ ok: true });
} catch (error) {
  parentPort.postMessage({ ok: false, error: String(error?.stack ?? error) });
}
