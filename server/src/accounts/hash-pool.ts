/**
 * Password hashing on threads of its own. `crypto.scrypt` runs on libuv's pool (4 threads), which sqlite3 uses for
 * every query too: a flood of sign-ins (32 MiB and ~190 ms a hash) queued the database's reads behind it. Here at most
 * `workers` hashes run at once, each on a worker thread, at most `queue` more wait, and any beyond are refused at once
 * (`HashPoolFull`): a flood costs everyone else those threads and no more, and nobody waits seconds for a hash.
 *
 * A sign-in's hash comes with a ticket (`HashTicket`: its account, its address, and whether that account is known
 * there) and the capacity is shared fairly: one address holds at most a quarter of the places (running and waiting),
 * one account at most half, so a flood from one address, or against one account, leaves room for everyone else; and
 * a reserve of places beyond `queue`, served first, is kept for accounts known at their address (a recent successful
 * sign-in from it, or a session cookie of theirs), so a flood from many addresses cannot keep the owner out.
 */
import { Worker } from 'node:worker_threads';
import type { Derive, ScryptParams } from './passwords.js';
import { scryptMaxmem } from './passwords.js';

export interface HashPoolOptions {
  /** Hashes at once, one worker thread each (started on first use). */
  workers: number;
  /** Hashes waiting for a worker; more are refused. */
  queue: number;
}

/** Whose sign-in a hash is for: its account (as folded), the client's address, and whether the account is known there. */
export interface HashTicket {
  account: string;
  address: string;
  known: boolean;
}

/** Every worker busy and the queue full: try again after `retryAfterS`. */
export class HashPoolFull extends Error {
  constructor(readonly retryAfterS: number) {
    super(`Too many passwords are being checked; try again in ${retryAfterS} s.`);
    this.name = 'HashPoolFull';
  }
}

// Plain CommonJS, evaluated: no file to find, whether this runs from source (tsx) or bundled (dist/server.mjs).
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
parentPort.on('message', ({ password, salt, length, options }) => {
  try {
    parentPort.postMessage({ key: scryptSync(password, salt, length, options) });
  } catch (error) {
    parentPort.postMessage({ error: String((error && error.message) || error) });
  }
});
`;

interface Job {
  ticket: HashTicket | undefined;
  password: string;
  salt: Buffer;
  params: ScryptParams;
  length: number;
  resolve: (key: Buffer) => void;
  reject: (error: Error) => void;
}

/** Until hashes are timed: about production scrypt's cost on a server core. */
const FIRST_GUESS_MS = 200;

export class HashPool {
  readonly #workers: number;
  readonly #queue: number;
  readonly #idle: Worker[] = [];
  readonly #busy = new Map<Worker, { job: Job; started: number }>();
  /** Known accounts' hashes (the reserve), served before the others. */
  readonly #known: Job[] = [];
  readonly #waiting: Job[] = [];
  /** Places (running and waiting) held per address and per account, by tickets not known there. */
  readonly #byAddress = new Map<string, number>();
  readonly #byAccount = new Map<string, number>();
  readonly #reserve: number;
  readonly #perAddress: number;
  readonly #perAccount: number;
  #meanMs = FIRST_GUESS_MS;
  #closed = false;

  constructor(options: HashPoolOptions) {
    if (!(Number.isInteger(options.workers) && options.workers >= 1)) throw new RangeError('workers must be 1 or more');
    if (!(Number.isInteger(options.queue) && options.queue >= 0)) throw new RangeError('queue must be 0 or more');
    this.#workers = options.workers;
    this.#queue = options.queue;
    const places = options.workers + options.queue;
    this.#reserve = Math.max(2, Math.ceil(options.queue / 2));
    this.#perAddress = Math.max(1, Math.ceil(places / 4));
    this.#perAccount = Math.max(1, Math.ceil(places / 2));
  }

  /** Hashes running and waiting. */
  get load(): { running: number; waiting: number } {
    return { running: this.#busy.size, waiting: this.#waiting.length + this.#known.length };
  }

  /**
   * Throws `HashPoolFull` when a hash asked for now (for `ticket`'s sign-in) would be refused: before work that would
   * be wasted on it.
   */
  admit(ticket?: HashTicket): void {
    if (!this.#fits(ticket)) throw new HashPoolFull(this.#retryAfterS());
  }

  /** Hashes for no sign-in in particular (a new user, a password change): any free place. */
  readonly derive: Derive = (password, salt, params, length) => this.#derive(undefined, password, salt, params, length);

  /** The hashes of one sign-in, shared out by its ticket. */
  deriveFor(ticket: HashTicket): Derive {
    return (password, salt, params, length) => this.#derive(ticket, password, salt, params, length);
  }

  #derive(ticket: HashTicket | undefined, password: string, salt: Buffer, params: ScryptParams, length: number) {
    return new Promise<Buffer>((resolve, reject) => {
      if (this.#closed) return reject(new Error('The password hash pool is closed.'));
      if (!this.#fits(ticket)) return reject(new HashPoolFull(this.#retryAfterS()));
      const job: Job = { ticket, password, salt, params, length, resolve, reject };
      this.#hold(job, 1);
      if (this.#busy.size < this.#workers) this.#run(job);
      else if (ticket?.known) this.#known.push(job);
      else this.#waiting.push(job);
    });
  }

  /** Whether a hash for `ticket` would be taken now: a worker free, or a place in its lane within its shares. */
  #fits(ticket: HashTicket | undefined): boolean {
    if (this.#busy.size < this.#workers && (ticket === undefined || this.#withinShares(ticket))) return true;
    if (ticket?.known) return this.#known.length < this.#reserve;
    return this.#waiting.length < this.#queue && (ticket === undefined || this.#withinShares(ticket));
  }

  #withinShares(ticket: HashTicket): boolean {
    if (ticket.known) return true;
    return (
      (this.#byAddress.get(ticket.address) ?? 0) < this.#perAddress &&
      (this.#byAccount.get(ticket.account) ?? 0) < this.#perAccount
    );
  }

  /** Counts `job`'s place (`+1`) or lets go of it (`-1`) against its address's and account's shares. */
  #hold(job: Job, by: 1 | -1): void {
    const ticket = job.ticket;
    if (!ticket || ticket.known) return;
    for (const [counts, key] of [
      [this.#byAddress, ticket.address],
      [this.#byAccount, ticket.account],
    ] as const) {
      const n = (counts.get(key) ?? 0) + by;
      if (n > 0) counts.set(key, n);
      else counts.delete(key);
    }
  }

  /** Ends the workers; waiting and running hashes fail. */
  async close(): Promise<void> {
    this.#closed = true;
    const closed = new Error('The password hash pool is closed.');
    for (const job of [...this.#known.splice(0), ...this.#waiting.splice(0)]) job.reject(closed);
    const workers = [...this.#idle.splice(0), ...this.#busy.keys()];
    for (const { job } of this.#busy.values()) job.reject(closed);
    this.#busy.clear();
    await Promise.all(workers.map((worker) => worker.terminate()));
  }

  /** When everything ahead, and this attempt, would have had its turn. */
  #retryAfterS(): number {
    const ahead = this.#busy.size + this.#waiting.length + this.#known.length + 1;
    return Math.max(1, Math.ceil(((ahead / this.#workers) * this.#meanMs) / 1000));
  }

  #run(job: Job): void {
    const worker = this.#idle.pop() ?? this.#spawn();
    this.#busy.set(worker, { job, started: performance.now() });
    // Referenced only while hashing: an idle pool does not keep the process alive, a running hash does (the CLI).
    worker.ref();
    const { password, salt, params, length } = job;
    const { N, r, p } = params;
    worker.postMessage({ password, salt, length, options: { N, r, p, maxmem: scryptMaxmem(params) } });
  }

  #spawn(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.on('message', (reply: { key?: Uint8Array; error?: string }) => {
      const running = this.#busy.get(worker);
      if (!running) return;
      this.#busy.delete(worker);
      this.#hold(running.job, -1);
      const ms = performance.now() - running.started;
      this.#meanMs = this.#meanMs * 0.8 + ms * 0.2;
      if (reply.key) running.job.resolve(Buffer.from(reply.key.buffer, reply.key.byteOffset, reply.key.byteLength));
      else running.job.reject(new Error(reply.error ?? 'scrypt failed'));
      worker.unref();
      this.#idle.push(worker);
      this.#next();
    });
    const lost = (error: Error) => {
      const running = this.#busy.get(worker);
      this.#busy.delete(worker);
      if (running) this.#hold(running.job, -1);
      const at = this.#idle.indexOf(worker);
      if (at >= 0) this.#idle.splice(at, 1);
      running?.job.reject(error);
      if (!this.#closed) this.#next();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`A password hash worker exited (${code}).`)));
    return worker;
  }

  #next(): void {
    if (this.#busy.size >= this.#workers) return;
    const job = this.#known.shift() ?? this.#waiting.shift();
    if (job) this.#run(job);
  }
}
