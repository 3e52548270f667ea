/**
 * Several real instances (`npm start`, each its own process group) on one throwaway PostgreSQL, behind a real nginx
 * running `server/deploy/nginx/consilium-proxy.conf` as it is, round robin over them: what an operator deploys, on
 * loopback. A test can kill or restart an instance, and end PostgreSQL's connections or restart it. `startInstances`
 * runs them on a database of the caller's (a primary and standby's, `replication.ts`); with `databaseLinks`, each
 * instance reaches it through a forwarder of its own (`forwarder.ts`), so one instance's link can be held silent.
 *
 * Without nginx importing this module throws, so its tests fail: `npm test`'s pretest (`setup.sh`) has installed it or
 * stopped. They skip, with the reason printed, only when `CONSILIUM_SKIP_SERVICES` names nginx (or postgres).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Forwarder, startForwarder } from './forwarder.js';
import { freePort, postgres, startPostgres, type TestPostgres } from './postgres.js';
import { captured, envWith, npmStart, ROOT, type Run, running, stop as stopRun, waitForStdout } from './process.js';
import { missingService, skipReason, skipsService } from './services.js';

/** The sample proxy configuration, included as it is. */
export const PROXY_SNIPPET = join(ROOT, 'server/deploy/nginx/consilium-proxy.conf');

export type NginxAvailability = { available: true; binary: string } | { available: false; reason: string };

function availability(): NginxAvailability {
  if (skipsService('nginx')) return { available: false, reason: skipReason('nginx') };
  const binary = process.env.CONSILIUM_NGINX || '/usr/sbin/nginx';
  if (existsSync(binary)) return { available: true, binary };
  throw missingService('nginx', `nginx (${binary})`, 'CONSILIUM_NGINX');
}

/** Decided when the test file loads, so `describe.skipIf(!cluster.available)` can use it. */
export const nginx: NginxAvailability = availability();
/** Whether a cluster can run here: nginx and PostgreSQL both. */
export const clusterAvailable = nginx.available && postgres.available;
if (!nginx.available) console.warn(`[cluster tests skipped] ${nginx.reason}`);

export interface ClusterOptions {
  /** How many instances (default 2). */
  instances?: number;
  /** The offline models' delay per token (default 10 ms, so a debate takes a few seconds). */
  tokenDelayMs?: number;
  /** More settings for every instance. */
  env?: Record<string, string>;
  /** Each instance reaches the database through a forwarder of its own (`Instance.databaseLink`). */
  databaseLinks?: boolean;
}

export interface InstancesOptions extends ClusterOptions {
  /** The database every instance uses. */
  databaseUrl: string;
}

export interface Instance {
  /** Its `CONSILIUM_INSTANCE_ID`: `instance-<i>`. */
  id: string;
  /** Where it listens, bypassing the proxy. */
  url: string;
  /** Its current process (replaced by `restart`). */
  run: Run;
  /** With `databaseLinks`: its own way to the database (its pool and its LISTEN connection), to silence or cut. */
  databaseLink?: Forwarder;
}

/** Instances on a database of the caller's, behind nginx. */
export interface Instances {
  /** nginx in front of every instance. */
  proxyUrl: string;
  instances: Instance[];
  /** The database the instances share (each through its `databaseLink`, when it has one). */
  databaseUrl: string;
  /** The admin account every instance knows (`CONSILIUM_ADMIN_PASSWORD`; the first to start creates it). */
  admin: { username: 'admin'; password: string };
  /** Sends `signal` to instance `i`'s process group (default SIGKILL: a crash) and waits for it to exit. */
  kill(i: number, signal?: NodeJS.Signals): Promise<void>;
  /** Starts instance `i` again (same port, same id) once its process has gone; resolves when it listens. */
  restart(i: number): Promise<void>;
  /** Stops nginx and every instance (and, for a `Cluster`, PostgreSQL), and removes their files. */
  stop(): Promise<void>;
}

export interface Cluster extends Instances {
  /** The PostgreSQL server: `terminateBackends`, `halt`, `start`, `restart`. */
  postgres: TestPostgres;
}

/**
 * An nginx.conf for `ports`, in `dir`: no daemon, every path inside `dir`, runs as root too. A server that refused a
 * connection is left out for 1 s (nginx's default is 10 s), so a restarted instance is back in turn quickly.
 */
export function nginxConf(dir: string, listen: number, ports: readonly number[]): string {
  return `daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log info;
${process.getuid?.() === 0 ? 'user root;\n' : ''}events { worker_connections 256; }
http {
  access_log ${dir}/access.log;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  upstream consilium {
${ports.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=1s;`).join('\n')}
    keepalive 8;
  }
  server {
    listen 127.0.0.1:${listen};
    include ${PROXY_SNIPPET};
  }
}
`;
}

/** Starts PostgreSQL, `instances` servers on it (one after another, so the first migrates), then nginx. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  if (!nginx.available) throw new Error(`nginx is not available: ${nginx.reason}`);
  const pg = await startPostgres();
  try {
    const instances = await startInstances({ ...options, databaseUrl: await pg.createDatabase() });
    return {
      ...instances,
      postgres: pg,
      async stop() {
        await instances.stop();
        await pg.stop();
      },
    };
  } catch (error) {
    await pg.stop();
    throw error;
  }
}

/** Starts `instances` servers on `databaseUrl` (one after another, so the first migrates), then nginx. */
export async function startInstances(options: InstancesOptions): Promise<Instances> {
  if (!nginx.available) throw new Error(`nginx is not available: ${nginx.reason}`);
  const count = options.instances ?? 2;
  const { databaseUrl } = options;
  const dir = mkdtempSync(join(tmpdir(), 'consilium-cluster-'));
  const admin = { username: 'admin' as const, password: `admin-${Math.random().toString(36).slice(2)}-pw` };
  const instances: Instance[] = [];
  const links: Forwarder[] = [];
  let proxy: ChildProcess | undefined;
  let proxyLog = '';
  const stopAll = async () => {
    if (proxy && proxy.exitCode === null && proxy.signalCode === null) {
      const exited = new Promise((resolve) => proxy!.once('exit', resolve));
      proxy.kill('SIGQUIT');
      await exited;
    }
    await Promise.all(instances.map((instance) => stopRun(instance.run)));
    await Promise.all(links.map((link) => link.close()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) ports.push(await freePort());
    const database = new URL(databaseUrl);
    if (options.databaseLinks) {
      for (let i = 0; i < count; i++) {
        links.push(await startForwarder({ target: { host: database.hostname, port: Number(database.port || 5432) } }));
      }
    }
    /** Instance `i`'s database URL: through its link, when it has one. */
    const databaseOf = (i: number) => {
      const link = links[i];
      if (!link) return databaseUrl;
      const through = new URL(databaseUrl);
      through.hostname = link.host;
      through.port = String(link.port);
      return through.toString();
    };
    const listen = await freePort();
    const proxyUrl = `http://127.0.0.1:${listen}`;
    const launch = async (i: number): Promise<Run> => {
      const run = npmStart(
        envWith(join(dir, `data-${i}`), {
          HOST: '127.0.0.1',
          PORT: String(ports[i]),
          CONSILIUM_DATABASE: databaseOf(i),
          CONSILIUM_INSTANCE_ID: `instance-${i}`,
          CONSILIUM_ADMIN_PASSWORD: admin.password,
          CONSILIUM_OFFLINE_TOKEN_MS: String(options.tokenDelayMs ?? 10),
          CONSILIUM_RATE_LIMITS: 'off',
          // As deployed: the instances answer to the proxy's origin, which clients see.
          CONSILIUM_PUBLIC_ORIGIN: proxyUrl,
          ...options.env,
        }),
      );
      await waitForStdout(run, /is serving http:\/\//);
      return run;
    };
    for (let i = 0; i < count; i++) {
      instances.push({
        id: `instance-${i}`,
        url: `http://127.0.0.1:${ports[i]}`,
        run: await launch(i),
        ...(links[i] && { databaseLink: links[i] }),
      });
    }

    const conf = join(dir, 'nginx.conf');
    writeFileSync(conf, nginxConf(dir, listen, ports));
    proxy = spawn(nginx.binary, ['-c', conf, '-p', dir, '-e', join(dir, 'error.log')], { stdio: ['ignore', 'pipe', 'pipe'] });
    proxy.stdout!.setEncoding('utf8').on('data', (chunk: string) => (proxyLog += chunk));
    proxy.stderr!.setEncoding('utf8').on('data', (chunk: string) => (proxyLog += chunk));
    await waitForProxy(proxyUrl, proxy, () => proxyLog);

    return {
      proxyUrl,
      instances,
      databaseUrl,
      admin,
      async kill(i, signal = 'SIGKILL') {
        const { run } = instances[i]!;
        if (!running(run)) return;
        try {
          process.kill(-run.child.pid!, signal);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
        }
        await run.exit;
      },
      async restart(i) {
        const instance = instances[i]!;
        if (running(instance.run)) throw new Error(`instance ${i} is still running: kill it first${captured(instance.run)}`);
        instance.run = await launch(i);
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** Waits until nginx answers (its master has bound the port); fails at once if it exits. */
async function waitForProxy(url: string, proxy: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (proxy.exitCode !== null || proxy.signalCode !== null)
      throw new Error(`nginx exited (${proxy.exitCode ?? proxy.signalCode}):\n${log()}`);
    try {
      await fetch(`${url}/health`);
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`nginx did not answer at ${url} within 10 s:\n${log()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
