/**
 * `setup.sh` (npm test's pretest) run by bash in a sandbox: the services it looks for are pointed into a temp dir
 * (`PG_BIN`, `CONSILIUM_CHROMIUM`, `MW_INSTALL_PATH`, `CONSILIUM_NGINX`), and `id`, `sudo`, `php` and `apt-get` are fakes first on
 * `PATH`. The fake apt-get records its arguments and "installs" by creating what the script looks for; the real
 * one never runs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SCRIPT = new URL('./setup.sh', import.meta.url).pathname;
/** Found once, so a test can run the script with a `PATH` that has nothing else. */
const BASH = execFileSync('bash', ['-c', 'command -v bash'], { encoding: 'utf8' }).trim();

const FAKE_APT_GET = `#!/bin/sh
echo "apt-get $*" >>"$CALLS"
[ -n "$APT_FAILS" ] && { echo "E: Unable to locate package chromium"; exit 100; }
[ -n "$APT_INSTALLS_NOTHING" ] && exit 0
case " $* " in *" install "*) ;; *) exit 0 ;; esac
for package in "$@"; do
  case "$package" in
    postgresql) mkdir -p "$PG_BIN" && printf '#!/bin/sh\\n' >"$PG_BIN/initdb" && cp "$PG_BIN/initdb" "$PG_BIN/pg_ctl" &&
      chmod +x "$PG_BIN/initdb" "$PG_BIN/pg_ctl" ;;
    chromium) printf '#!/bin/sh\\n' >"$CONSILIUM_CHROMIUM" && chmod +x "$CONSILIUM_CHROMIUM" ;;
    mediawiki) mkdir -p "$MW_INSTALL_PATH/maintenance" && : >"$MW_INSTALL_PATH/maintenance/install.php" ;;
    nginx) printf '#!/bin/sh\\n' >"$CONSILIUM_NGINX" && chmod +x "$CONSILIUM_NGINX" ;;
  esac
done
`;

/** sudo that asks for a password (fails with -n, as without a terminal), or one that asks for none. */
const fakeSudo = (passwordless: boolean) => `#!/bin/sh
echo "sudo $*" >>"$CALLS"
if [ "$1" = -n ]; then ${passwordless ? 'shift' : 'echo "sudo: a password is required" >&2; exit 1'}; fi
exec "$@"
`;

let dir: string;
let bin: string;
let calls: string;

function fake(name: string, script: string): void {
  writeFileSync(join(bin, name), script);
  chmodSync(join(bin, name), 0o755);
}

const user = { root: '0', other: '1000' };
function runAs(uid: string, sudo: 'none' | 'password' | 'passwordless', env: Record<string, string> = {}, args: string[] = []) {
  fake('id', `#!/bin/sh\necho ${uid}\n`);
  if (sudo === 'none') fake('sudo', '#!/bin/sh\necho "sudo: not installed here" >&2\nexit 127\n');
  else fake('sudo', fakeSudo(sudo === 'passwordless'));
  const result = spawnSync(BASH, [SCRIPT, ...args], {
    encoding: 'utf8',
    env: {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: dir,
      TMPDIR: dir,
      CALLS: calls,
      PG_BIN: join(dir, 'pg'),
      CONSILIUM_CHROMIUM: join(dir, 'chromium'),
      MW_INSTALL_PATH: join(dir, 'mediawiki'),
      CONSILIUM_NGINX: join(dir, 'nginx'),
      ...env,
    },
  });
  return { ...result, calls: existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : [] };
}

/** Puts all four services in place, as the fake apt-get would. */
function installAll(): void {
  runAs(user.root, 'none');
  rmSync(calls);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'consilium-setup-'));
  bin = join(dir, 'bin');
  calls = join(dir, 'calls');
  mkdirSync(bin);
  fake('apt-get', FAKE_APT_GET);
  fake('php', "#!/bin/sh\nprintf 'Core\\nintl\\nmbstring\\npdo_sqlite\\nxml\\n'\n");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ALL_PACKAGES = 'postgresql chromium fonts-liberation mediawiki php-cli php-sqlite3 php-intl php-mbstring php-xml nginx';

describe('with everything there', () => {
  it('says nothing, calls nothing, and exits 0', () => {
    installAll();
    const run = runAs(user.other, 'none');
    expect(run).toMatchObject({ status: 0, stdout: '', stderr: '', calls: [] });
  });

  it('never asks sudo, even under CI=true', () => {
    installAll();
    expect(runAs(user.other, 'password', { CI: 'true' })).toMatchObject({ status: 0, stdout: '', stderr: '', calls: [] });
  });
});

describe('something missing, and no way to install it', () => {
  it('stops with one message naming what is missing and what to run, without calling apt-get', () => {
    const run = runAs(user.other, 'password');
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.calls).toEqual(['sudo -n true']);
    expect(run.stderr).toContain('npm test needs PostgreSQL, Chromium, MediaWiki with PHP and nginx, missing here;');
    expect(run.stderr).toContain('needs root, or sudo without a password');
    expect(run.stderr).toContain(`sudo apt-get update && sudo apt-get install -y --no-install-recommends ${ALL_PACKAGES}\n`);
    for (const variable of [
      'PG_BIN=',
      'CONSILIUM_TEST_DATABASE_URL=',
      'CONSILIUM_CHROMIUM=',
      'MW_INSTALL_PATH=',
      'CONSILIUM_NGINX=',
    ]) {
      expect(run.stderr).toContain(variable);
    }
    expect(run.stderr).toContain('CONSILIUM_SKIP_SERVICES=postgres,chromium,mediawiki,nginx npm test');
  });

  it('names only what is missing', () => {
    installAll();
    rmSync(join(dir, 'chromium'));
    const run = runAs(user.other, 'none');
    expect(run).toMatchObject({ status: 1, stdout: '', calls: [] });
    expect(run.stderr).toContain('npm test needs Chromium, missing here;');
    expect(run.stderr).toContain('--no-install-recommends chromium fonts-liberation\n');
    expect(run.stderr).toContain('CONSILIUM_CHROMIUM=');
    expect(run.stderr).not.toContain('PG_BIN=');
    expect(run.stderr).toContain('CONSILIUM_SKIP_SERVICES=chromium npm test');
  });

  it('names nginx alone when only it is missing, with CONSILIUM_NGINX to point at one', () => {
    installAll();
    rmSync(join(dir, 'nginx'));
    const run = runAs(user.other, 'none');
    expect(run).toMatchObject({ status: 1, stdout: '', calls: [] });
    expect(run.stderr).toContain('npm test needs nginx, missing here;');
    expect(run.stderr).toContain('--no-install-recommends nginx\n');
    expect(run.stderr).toContain('CONSILIUM_NGINX=');
    expect(run.stderr).toContain('CONSILIUM_SKIP_SERVICES=nginx npm test');
  });

  it('says so when there is no apt-get, even as root', () => {
    rmSync(join(bin, 'apt-get'));
    const run = runAs(user.root, 'none', { PATH: bin });
    expect(run).toMatchObject({ status: 1, stdout: '', calls: [] });
    expect(run.stderr).toContain('npm test needs PostgreSQL, Chromium, MediaWiki with PHP and nginx, missing here;');
    expect(run.stderr).toContain('there is no apt-get here to install them with');
  });
});

describe('something missing, and root or sudo without a password', () => {
  it('as root: installs the missing packages in one apt step, saying so in one line', () => {
    const run = runAs(user.root, 'none');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(
      /^Installing PostgreSQL, Chromium, MediaWiki with PHP and nginx from Debian's packages for the tests \(log: .*\)…\n$/,
    );
    expect(run.calls).toEqual(['apt-get -q -y update', `apt-get -q -y install --no-install-recommends ${ALL_PACKAGES}`]);
    expect(existsSync(join(dir, 'chromium'))).toBe(true);
    expect(runAs(user.other, 'none')).toMatchObject({ status: 0, stdout: '', stderr: '' });
  });

  it('through sudo -n, never asking for a password, only what is missing', () => {
    installAll();
    rmSync(join(dir, 'pg'), { recursive: true });
    const run = runAs(user.other, 'passwordless');
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toMatch(/^Installing PostgreSQL from Debian's packages/);
    expect(run.calls).toEqual([
      'sudo -n true',
      'sudo -n env DEBIAN_FRONTEND=noninteractive apt-get -q -y update',
      'apt-get -q -y update',
      'sudo -n env DEBIAN_FRONTEND=noninteractive apt-get -q -y install --no-install-recommends postgresql',
      'apt-get -q -y install --no-install-recommends postgresql',
    ]);
  });

  it("when apt-get fails: exits 1 with the end of apt-get's log", () => {
    const run = runAs(user.root, 'none', { APT_FAILS: '1' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^apt-get failed; the end of its log \(.*\):\nE: Unable to locate package chromium\n$/);
  });

  it('when the packages are installed but the service is still not found: exits 1 and says which', () => {
    installAll();
    rmSync(join(dir, 'chromium'));
    const run = runAs(user.root, 'none', { APT_INSTALLS_NOTHING: '1' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^Installed chromium fonts-liberation, but still missing: Chromium \(log: .*\)\.\n$/);
  });
});

describe('CI=true or --install', () => {
  it.each([
    ['CI=true', { CI: 'true' }, []],
    ['--install', {}, ['--install']],
  ])('%s installs through sudo even if it asks for a password', (_, env, args) => {
    const run = runAs(user.other, 'password', env, args);
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.calls[0]).toBe('sudo env DEBIAN_FRONTEND=noninteractive apt-get -q -y update');
  });
});

describe('CONSILIUM_SKIP_SERVICES', () => {
  it('leaves the services it names out', () => {
    const run = runAs(user.other, 'none', { CONSILIUM_SKIP_SERVICES: 'postgres, mediawiki, nginx' });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('npm test needs Chromium, missing here;');
    expect(runAs(user.other, 'none', { CONSILIUM_SKIP_SERVICES: 'postgres,chromium,mediawiki,nginx' })).toMatchObject({
      status: 0,
      stdout: '',
      stderr: '',
      calls: [],
    });
  });
});
