/**
 * A finished session's events as one compressed archive: the JSON array of its events, brotli-compressed.
 * A debate streams its text as hundreds of deltas, each stored with a full envelope (about 40 bytes per
 * byte of text); the archive keeps every event as it was (seq, ts, delta) in a few percent of that, so
 * replay and resume from any seq give exactly what they gave before. Written once a session has ended.
 */
import { promisify } from 'node:util';
import { brotliCompress, brotliDecompressSync, constants } from 'node:zlib';
import type { DebateEvent } from '../../../sdk/src/generated/types.gen.js';

const compress = promisify(brotliCompress);

// Quality 5 is within 2% of 11's size at a tenth of the time; a 4 MB window sees a whole debate at once.
const PARAMS = { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_LGWIN]: 22 };

/** The archive of `json`, a JSON array of events in seq order (off the main thread). */
export function packEvents(json: string): Promise<Buffer> {
  return compress(Buffer.from(json, 'utf8'), { params: PARAMS });
}

/** The events an archive holds, in seq order. */
export function unpackEvents(archive: Uint8Array): DebateEvent[] {
  return JSON.parse(brotliDecompressSync(archive).toString('utf8')) as DebateEvent[];
}

/** `archived` (whole, in order) then `rows`, as one seq-ordered list of the events after `afterSeq`. */
export function joinEvents(archived: readonly DebateEvent[], rows: readonly DebateEvent[], afterSeq: number): DebateEvent[] {
  const out = archived.filter((e) => e.seq > afterSeq);
  if (out.length === 0) return [...rows];
  out.push(...rows);
  // Rows are written above the archive's last seq; sorted all the same should one ever not be.
  if (rows.length > 0 && rows[0]!.seq < archived.at(-1)!.seq) out.sort((a, b) => a.seq - b.seq);
  return out;
}
