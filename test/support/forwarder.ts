/**
 * A TCP forwarder on loopback, in front of one target, for making a network misbehave on purpose: switched to
 * another target (a failover's new primary), delayed (a replication link that lags: a standby promotes with what it
 * has received), held silent (a partition: connections stay open, no byte passes either way) and cut (every
 * connection destroyed). What it holds, it keeps in order, per connection and direction.
 */
import { createServer, type Server, Socket } from 'node:net';

export interface Target {
  host: string;
  port: number;
}

export interface ForwarderOptions {
  /** Where connections go until `switchTo`. */
  target: Target;
  /** The loopback port to listen on (default: a free one). */
  port?: number;
}

export interface Forwarder {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** Where new connections go. */
  readonly target: Target;
  /** Connections open now. */
  readonly connections: number;
  /** Bytes received and not yet passed on, both directions of every connection. */
  readonly pending: number;
  /** New connections go to `target`; every open one is cut. */
  switchTo(target: Target): void;
  /**
   * Holds each chunk, in each direction, `ms` after it arrived before passing it on (order kept); 0 passes it at
   * once. A change applies to what is held already, counted from when each chunk arrived.
   */
  delay(ms: number): void;
  /** From now on no byte passes, either way, on any connection (new ones too), until `release` or `cut`. */
  silence(): void;
  /** Ends `silence`: what was held passes on, in order (after what is left of its delay). */
  release(): void;
  /** Destroys every open connection, as a broken link does: what was held is dropped. */
  cut(): void;
  /** Cuts every connection and stops listening. */
  close(): Promise<void>;
}

/** What one direction of a connection holds: chunks with their arrival, and an end once the sender ended. */
interface Pipe {
  from: Socket;
  to: Socket;
  held: { chunk: Buffer; at: number }[];
  ended: boolean;
  /** The destination asked to wait (`write` returned false) until `drain`. */
  blocked: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
}

interface Link {
  client: Socket;
  upstream: Socket;
  pipes: [Pipe, Pipe];
}

/** Starts a forwarder; resolves once it listens. */
export async function startForwarder(options: ForwarderOptions): Promise<Forwarder> {
  let target = { ...options.target };
  let delayMs = 0;
  let silent = false;
  const links = new Set<Link>();

  const destroy = (link: Link) => {
    if (!links.delete(link)) return;
    for (const pipe of link.pipes) {
      clearTimeout(pipe.timer);
      pipe.held = [];
    }
    // A reset, not a polite end: the peer learns at once that the connection is gone.
    for (const socket of [link.client, link.upstream]) {
      if (socket.destroyed) continue;
      if (socket.connecting || typeof socket.resetAndDestroy !== 'function') socket.destroy();
      else socket.resetAndDestroy();
    }
  };

  /** Passes on what `pipe` may pass now, and sets a timer for the rest. */
  const pump = (link: Link, pipe: Pipe) => {
    clearTimeout(pipe.timer);
    pipe.timer = undefined;
    if (silent || pipe.blocked || !links.has(link) || pipe.to.connecting) return;
    const now = performance.now();
    while (pipe.held.length > 0) {
      const due = pipe.held[0]!.at + delayMs;
      if (due > now) {
        pipe.timer = setTimeout(() => pump(link, pipe), Math.ceil(due - now));
        return;
      }
      const { chunk } = pipe.held.shift()!;
      if (!pipe.to.write(chunk)) {
        pipe.blocked = true;
        pipe.to.once('drain', () => {
          pipe.blocked = false;
          pump(link, pipe);
        });
        return;
      }
    }
    if (pipe.ended && !pipe.to.writableEnded) pipe.to.end();
  };
  const pumpAll = () => {
    for (const link of links) for (const pipe of link.pipes) pump(link, pipe);
  };

  const server: Server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (client) => {
    const upstream = new Socket({ allowHalfOpen: true });
    const pipe = (from: Socket, to: Socket): Pipe => ({ from, to, held: [], ended: false, blocked: false, timer: undefined });
    const link: Link = { client, upstream, pipes: [pipe(client, upstream), pipe(upstream, client)] };
    links.add(link);
    for (const p of link.pipes) {
      p.from.on('data', (chunk: Buffer) => {
        p.held.push({ chunk, at: performance.now() });
        pump(link, p);
      });
      p.from.on('end', () => {
        p.ended = true;
        pump(link, p);
      });
      p.from.on('error', () => destroy(link));
      p.from.on('close', () => {
        // Both ends closed in order (each side ended and was ended): nothing is left to pass.
        if (link.client.destroyed && link.upstream.destroyed) links.delete(link);
        else if (!p.ended) destroy(link);
      });
    }
    upstream.connect(target.port, target.host, () => {
      for (const p of link.pipes) pump(link, p);
      client.resume();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the forwarder has no address');

  const cut = () => {
    for (const link of [...links]) destroy(link);
  };
  return {
    host: '127.0.0.1',
    port: address.port,
    get target() {
      return { ...target };
    },
    get connections() {
      return links.size;
    },
    get pending() {
      let bytes = 0;
      for (const link of links) for (const p of link.pipes) for (const { chunk } of p.held) bytes += chunk.length;
      return bytes;
    },
    switchTo(next) {
      target = { ...next };
      cut();
    },
    delay(ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`a delay is 0 ms or more, got ${ms}`);
      delayMs = ms;
      pumpAll();
    },
    silence() {
      silent = true;
      for (const link of links) for (const p of link.pipes) clearTimeout(p.timer);
    },
    release() {
      silent = false;
      pumpAll();
    },
    cut,
    async close() {
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
