/**
 * The forwarder against local echo servers. No assertion on how long anything took: a delay is proved by a chunk
 * that has reached the forwarder (`pending`) and not the server while another connection's bytes went through, and
 * by the order in which held chunks arrive once let go.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Forwarder, startForwarder } from './forwarder.js';

/** A server that greets each connection with `<name>>` and answers each chunk with `<name>|<chunk>`. */
interface Echo {
  name: string;
  port: number;
  /** Every byte received, from every connection, in arrival order. */
  received: string;
  accepted: number;
  /** Connections that ended (the client's end reached the server). */
  ended: number;
  closed: number;
  server: Server;
}

const servers: { close(): unknown }[] = [];
afterEach(async () => {
  // Clients first, then forwarders, then servers (whose close waits for their connections).
  for (const s of servers.splice(0).reverse()) await s.close();
});

async function startEcho(name: string): Promise<Echo> {
  const echo: Echo = { name, port: 0, received: '', accepted: 0, ended: 0, closed: 0, server: undefined as never };
  echo.server = createServer({ allowHalfOpen: true }, (socket) => {
    echo.accepted++;
    socket.write(`${name}>`);
    socket.on('data', (chunk) => {
      echo.received += chunk.toString();
      socket.write(`${name}|${chunk.toString()}`);
    });
    socket.on('end', () => {
      echo.ended++;
      socket.end();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => echo.closed++);
  });
  await new Promise<void>((resolve) => echo.server.listen(0, '127.0.0.1', resolve));
  echo.port = (echo.server.address() as { port: number }).port;
  servers.push({ close: () => new Promise((resolve) => echo.server.close(resolve)) });
  return echo;
}

/** A client connection and everything it has received. */
interface Client {
  socket: Socket;
  text: string;
  ended: boolean;
  closed: boolean;
}

async function client(port: number): Promise<Client> {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  const c: Client = { socket, text: '', ended: false, closed: false };
  socket.on('data', (chunk) => (c.text += chunk.toString()));
  socket.on('end', () => (c.ended = true));
  socket.on('error', () => undefined);
  socket.on('close', () => (c.closed = true));
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  servers.push({ close: () => socket.destroy() });
  return c;
}

const until = (what: () => boolean) => vi.waitUntil(what, { timeout: 20_000, interval: 5 });

async function forwarderTo(echo: Echo): Promise<Forwarder> {
  const forwarder = await startForwarder({ target: { host: '127.0.0.1', port: echo.port } });
  servers.push(forwarder);
  return forwarder;
}

/** A round trip straight to `echo`, past the forwarder: proof that the server answers meanwhile. */
async function probe(echo: Echo): Promise<void> {
  const direct = await client(echo.port);
  direct.socket.write('probe');
  await until(() => direct.text === `${echo.name}>${echo.name}|probe`);
  // A reset, so the server counts no end from it.
  direct.socket.resetAndDestroy();
}

describe('forwarder', () => {
  it('passes bytes both ways, and an end in each direction, as they come', async () => {
    const a = await startEcho('A');
    const forwarder = await forwarderTo(a);
    const c = await client(forwarder.port);
    c.socket.write('hello');
    await until(() => c.text === 'A>A|hello');
    expect(forwarder.connections).toBe(1);
    c.socket.end();
    // The client's end reaches the server, whose own end comes back.
    await until(() => c.ended && a.ended === 1);
    await until(() => forwarder.connections === 0);
  });

  it('a delay holds each chunk, in each direction, while other traffic passes; let go, they arrive in order', async () => {
    const a = await startEcho('A');
    const forwarder = await forwarderTo(a);
    forwarder.delay(3_600_000);
    const c = await client(forwarder.port);
    // The greeting reached the forwarder and waits there.
    await until(() => forwarder.pending === 2);
    for (const chunk of ['one,', 'two,', 'three']) {
      await new Promise((resolve) => c.socket.write(chunk, resolve));
      await until(() => forwarder.pending === 2 + 'one,two,three'.indexOf(chunk) + chunk.length);
    }
    await probe(a);
    expect(a.received).toBe('probe');
    expect(c.text).toBe('');
    forwarder.delay(0);
    await until(() => a.received === 'probeone,two,three');
    await until(() => c.text.startsWith('A>') && c.text.endsWith('three'));
    expect(c.text.replaceAll('A|', '')).toBe('A>one,two,three');
    expect(forwarder.pending).toBe(0);
  });

  it('a short delay still passes everything, in order, through its timers', async () => {
    const a = await startEcho('A');
    const forwarder = await forwarderTo(a);
    forwarder.delay(30);
    const c = await client(forwarder.port);
    for (let i = 0; i < 20; i++) c.socket.write(`${i};`);
    const sent = Array.from({ length: 20 }, (_, i) => `${i};`).join('');
    await until(() => a.received === sent);
    await until(() => c.text.replaceAll('A|', '') === `A>${sent}`);
  });

  it('silence: the connection stays open and no byte passes either way until released', async () => {
    const a = await startEcho('A');
    const forwarder = await forwarderTo(a);
    const c = await client(forwarder.port);
    await until(() => c.text === 'A>');
    forwarder.silence();
    c.socket.write('held');
    await until(() => forwarder.pending === 4);
    // A new connection is accepted and held too: not even the greeting gets through.
    const late = await client(forwarder.port);
    await until(() => a.accepted === 2 && forwarder.pending === 6);
    await probe(a);
    expect(a.received).toBe('probe');
    expect([c.text, late.text, c.closed, late.closed]).toStrictEqual(['A>', '', false, false]);
    // An end is held as well.
    c.socket.end();
    await probe(a);
    expect(a.ended).toBe(0);
    forwarder.release();
    await until(() => c.text === 'A>A|held' && late.text === 'A>');
    await until(() => a.ended === 1 && c.ended);
    expect(a.received).toBe('probeprobeheld');
  });

  it('silence then cut: both ends see the connection gone, and nothing held arrives', async () => {
    const a = await startEcho('A');
    const forwarder = await forwarderTo(a);
    const c = await client(forwarder.port);
    await until(() => c.text === 'A>');
    forwarder.silence();
    c.socket.write('lost');
    await until(() => forwarder.pending === 4);
    forwarder.cut();
    await until(() => c.closed && a.closed === 1);
    expect(forwarder.connections).toBe(0);
    expect(forwarder.pending).toBe(0);
    expect(a.received).toBe('');
    // Cut is not silence: a new connection passes again once released.
    forwarder.release();
    const next = await client(forwarder.port);
    next.socket.write('again');
    await until(() => next.text === 'A>A|again');
  });

  it('cut: every open connection is destroyed; new ones pass', async () => {
    const a = await startEcho('A');
    const forwarder = await forwarderTo(a);
    const clients = await Promise.all([client(forwarder.port), client(forwarder.port)]);
    await until(() => clients.every((c) => c.text === 'A>'));
    forwarder.cut();
    await until(() => clients.every((c) => c.closed) && a.closed === 2);
    const next = await client(forwarder.port);
    next.socket.write('x');
    await until(() => next.text === 'A>A|x');
  });

  it('switchTo: open connections are cut, new ones are answered by the new target', async () => {
    const a = await startEcho('A');
    const b = await startEcho('B');
    const forwarder = await forwarderTo(a);
    const before = await client(forwarder.port);
    before.socket.write('1');
    await until(() => before.text === 'A>A|1');
    forwarder.switchTo({ host: '127.0.0.1', port: b.port });
    expect(forwarder.target).toStrictEqual({ host: '127.0.0.1', port: b.port });
    await until(() => before.closed);
    const after = await client(forwarder.port);
    after.socket.write('2');
    await until(() => after.text === 'B>B|2');
    expect([a.received, b.received]).toStrictEqual(['1', '2']);
  });

  it('a target that refuses: the client connection is closed, not left hanging', async () => {
    const a = await startEcho('A');
    const forwarder = await forwarderTo(a);
    await new Promise((resolve) => a.server.close(resolve));
    const c = await client(forwarder.port);
    await until(() => c.closed);
    expect(c.text).toBe('');
    expect(forwarder.connections).toBe(0);
  });

  it('refuses a negative delay', async () => {
    const forwarder = await forwarderTo(await startEcho('A'));
    expect(() => forwarder.delay(-1)).toThrow(RangeError);
  });
});
