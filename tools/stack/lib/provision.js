'use strict';
// Provisioning shared by `npm start` and `npm test`: Debian packages (as root, or through
// password-less sudo), npm dependencies and the TypeScript build. Plain CommonJS on purpose:
// this runs before node_modules or any build output exists.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const log = require('./log');

const ROOT = path.resolve(__dirname, '..', '..', '..');

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Same search order as libs/local-infra's findBinary, so what we check is what gets started. */
function findBinary(name, extraDirs = []) {
  const dirs = [
    ...extraDirs,
    ...(process.env.PATH || '').split(':'),
    '/usr/sbin',
    '/usr/local/bin',
    '/usr/bin',
  ];
  for (const dir of dirs) {
    if (dir && isExecutable(path.join(dir, name))) return path.join(dir, name);
  }
  return undefined;
}

function findNats() {
  return findBinary('nats-server', [path.join(os.homedir(), 'go', 'bin')]);
}

function findPostgres() {
  const base = '/usr/lib/postgresql';
  if (fs.existsSync(base)) {
    for (const v of fs.readdirSync(base).filter((d) => /^\d+$/.test(d))) {
      if (isExecutable(path.join(base, v, 'bin', 'postgres'))) return path.join(base, v, 'bin', 'postgres');
    }
  }
  const onPath = findBinary('postgres');
  return onPath && isExecutable(path.join(path.dirname(onPath), 'initdb')) ? onPath : undefined;
}

function findChromium() {
  for (const env of ['WDS_CHROMIUM_PATH', 'CHROMIUM_PATH', 'PUPPETEER_EXECUTABLE_PATH']) {
    if (process.env[env] && isExecutable(process.env[env])) return process.env[env];
  }
  for (const name of ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome']) {
    const found = findBinary(name);
    if (found) return found;
  }
  return undefined;
}

const BROWSER_EXTRAS = [
  { pkg: 'chromium-headless-shell', file: '/usr/lib/chromium/chromium-headless-shell' },
  // Browser sessions run user code and their browsers in bubblewrap sandboxes (docs/adr/0008).
  { pkg: 'bubblewrap', file: '/usr/bin/bwrap' },
  // pip installs Playwright for Python for the sessions' python runtime (provisionSandboxPython).
  { pkg: 'python3-pip', file: '/usr/lib/python3/dist-packages/pip' },
  {
    pkg: 'webext-ublock-origin-chromium',
    file: '/usr/share/chromium/extensions/ublock-origin/assets/thirdparties/easylist/easylist.txt',
  },
];

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function canSudo() {
  if (!findBinary('sudo')) return false;
  return spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
}

function run(cmd, args, opts = {}) {
  log.info(`$ ${[cmd, ...args].join(' ')}`);
  const res = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], cwd: ROOT, ...opts });
  if (res.error) return { ok: false, why: res.error.message };
  return { ok: res.status === 0, why: `exit code ${res.status ?? res.signal}` };
}

function privileged(argv) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (isRoot()) return run(argv[0], argv.slice(1), { env });
  return run('sudo', ['-n', 'env', 'DEBIAN_FRONTEND=noninteractive', ...argv], { env });
}

// Debian's postgresql package starts a cluster on port 5432 from its postinst script; we run our
// own server, so a policy-rc.d that forbids service starts is in place during the install.
const POLICY_RC_D = '/usr/sbin/policy-rc.d';

function withServiceStartsDisabled(fn) {
  if (fs.existsSync(POLICY_RC_D)) return fn();
  privileged(['sh', '-c', `printf '#!/bin/sh\\nexit 101\\n' > ${POLICY_RC_D} && chmod 755 ${POLICY_RC_D}`]);
  try {
    return fn();
  } finally {
    privileged(['rm', '-f', POLICY_RC_D]);
  }
}

/** Whether `python3 -m venv` can create a venv with pip (Debian splits ensurepip into python3-venv). */
function hasPythonVenv() {
  const res = spawnSync('python3', ['-c', 'import ensurepip, venv'], { stdio: 'ignore' });
  return res.status === 0;
}

/**
 * Installs the Debian packages for the servers the run needs and does not find. Chromium is
 * wanted for browser work, but a start without it is still useful: its failure only warns.
 * Throws with an actionable message when something required is missing and cannot be installed.
 */
function provisionSystem({ nats, postgres, chromium, chromiumRequired = false, python = false }) {
  const wanted = [];
  // The tests drive the official Python SDK from a venv they create (apps/e2e/test/support/python-sdk.ts).
  if (python && !hasPythonVenv())
    wanted.push({ pkg: 'python3-venv', required: true, present: hasPythonVenv });
  if (nats && !findNats()) wanted.push({ pkg: 'nats-server', required: true, present: findNats });
  if (postgres && !findPostgres()) wanted.push({ pkg: 'postgresql', required: true, present: findPostgres });
  if (chromium && !findChromium())
    wanted.push({ pkg: 'chromium', required: chromiumRequired, present: findChromium });
  // The scraper's audio/video formats run ffmpeg/ffprobe (audio to MP3, media checks).
  if (chromium && !findBinary('ffmpeg'))
    wanted.push({ pkg: 'ffmpeg', required: chromiumRequired, present: () => Boolean(findBinary('ffmpeg')) });
  // The browser-pool prefers these when present (see apps/browser-pool/README.md): the headless
  // shell halves the memory and CPU per page; the uBlock package ships EasyList and EasyPrivacy.
  if (chromium) {
    for (const extra of BROWSER_EXTRAS) {
      if (!fs.existsSync(extra.file)) {
        wanted.push({ pkg: extra.pkg, required: false, present: () => fs.existsSync(extra.file) });
      }
    }
  }
  if (wanted.length === 0) return;

  const names = wanted.map((w) => w.pkg).join(' ');
  const aptAvailable = Boolean(findBinary('apt-get'));
  if (!aptAvailable || !(isRoot() || canSudo())) {
    const why = aptAvailable ? 'not running as root and sudo needs a password' : 'apt-get is not available';
    const missingRequired = wanted.filter((w) => w.required).map((w) => w.pkg);
    const hint = `install them first, e.g. \`sudo apt-get install -y ${names}\``;
    if (missingRequired.length > 0) {
      throw new Error(`missing ${missingRequired.join(', ')} and cannot install them (${why}): ${hint}`);
    }
    log.warn(`cannot install ${names} (${why}); browser features will be missing or slower: ${hint}`);
    return;
  }

  log.info(`installing missing system packages: ${names}`);
  const update = privileged(['apt-get', 'update']);
  if (!update.ok) log.warn(`apt-get update failed (${update.why}); trying the install anyway`);
  const install = (pkgs) =>
    withServiceStartsDisabled(() =>
      privileged(['apt-get', 'install', '-y', '--no-install-recommends', ...pkgs.map((w) => w.pkg)]),
    );

  const required = wanted.filter((w) => w.required);
  if (required.length > 0) {
    const res = install(required);
    const still = required.filter((w) => !w.present()).map((w) => w.pkg);
    if (!res.ok || still.length > 0) {
      throw new Error(
        `could not install ${still.join(', ') || required.map((w) => w.pkg).join(', ')} (${res.why})`,
      );
    }
  }
  const optional = wanted.filter((w) => !w.required);
  if (optional.length > 0) {
    const res = install(optional);
    const missing = optional.filter((w) => !w.present()).map((w) => w.pkg);
    if (!res.ok || missing.length > 0) {
      log.warn(
        `could not install ${missing.join(', ') || 'optional packages'} (${res.why}); ` +
          'without chromium browser features will not work; without the others they are slower or block fewer ads',
      );
    }
  }
}

/**
 * Whether node_modules matches package-lock.json: every non-optional locked package must be
 * installed at the locked version (npm's own hidden lockfile records what is installed).
 */
function nodeModulesState() {
  const hiddenFile = path.join(ROOT, 'node_modules', '.package-lock.json');
  if (!fs.existsSync(hiddenFile)) return 'missing';
  const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
  const hidden = JSON.parse(fs.readFileSync(hiddenFile, 'utf8'));
  const installed = hidden.packages || {};
  for (const [key, entry] of Object.entries(lock.packages || {})) {
    if (!key.includes('node_modules/') || entry.link) continue;
    // Platform-specific optional packages are legitimately absent.
    if (entry.optional || entry.devOptional || entry.os || entry.cpu || entry.libc) continue;
    if (!installed[key] || installed[key].version !== entry.version) return 'stale';
  }
  return 'ok';
}

function ensureNodeModules() {
  const state = nodeModulesState();
  if (state === 'ok') return;
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = state === 'missing' ? ['ci'] : ['install'];
  log.info(
    state === 'missing'
      ? 'installing npm dependencies'
      : 'node_modules is out of date with package-lock.json',
  );
  let res = run(npm, [...args, '--no-audit', '--no-fund']);
  if (!res.ok && args[0] === 'ci') {
    // `npm ci` refuses a lock that lacks entries for some platforms' optional binaries, which
    // happens when the registry in use does not serve every platform build (e.g. a mirror where
    // @swc/core-darwin-arm64 lags behind @swc/core). `npm install` still honours the lock's
    // versions for everything it records.
    log.warn(`npm ci failed (${res.why}); retrying with npm install`);
    res = run(npm, ['install', '--no-audit', '--no-fund']);
  }
  if (!res.ok) throw new Error(`npm ${args[0]} failed (${res.why})`);
}

function build() {
  log.info('building (tsc -b tsconfig.build.json)');
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const res = run(process.execPath, [tsc, '-b', 'tsconfig.build.json']);
  if (!res.ok) throw new Error(`build failed (${res.why})`);
}

/** Playwright for Python (PyPI) for the python runtime of browser sessions; pinned. */
const SANDBOX_PLAYWRIGHT_PY = 'playwright==1.49.1';
const SANDBOX_PYTHON_DIR = path.join(ROOT, 'apps', 'browser-pool', '.sandbox-python');

/**
 * Installs Playwright for Python where the browser-pool's code sandboxes find it (mounted read-only
 * at /opt/wds/python and run by Debian's /usr/bin/python3). Missing, python code in sessions fails
 * with a clear error; the rest works, so a failure here only warns.
 */
function provisionSandboxPython() {
  if (fs.existsSync(path.join(SANDBOX_PYTHON_DIR, 'playwright'))) return;
  if (!fs.existsSync('/usr/bin/python3')) {
    log.warn('no /usr/bin/python3: python code in browser sessions will not run');
    return;
  }
  log.info(`installing ${SANDBOX_PLAYWRIGHT_PY} for the browser sessions' python runtime`);
  const res = run('/usr/bin/python3', [
    '-m',
    'pip',
    'install',
    '--quiet',
    '--disable-pip-version-check',
    '--target',
    SANDBOX_PYTHON_DIR,
    SANDBOX_PLAYWRIGHT_PY,
  ]);
  if (!res.ok)
    log.warn(
      `could not install ${SANDBOX_PLAYWRIGHT_PY} (${res.why}): python code in browser sessions will not run`,
    );
}

/**
 * Everything before servers start. `needs` says which servers this run will start itself.
 * WDS_SKIP_PROVISION=1 skips packages and npm; WDS_SKIP_BUILD=1 skips the build.
 */
function prepare(needs) {
  if (process.env.WDS_SKIP_PROVISION !== '1') {
    provisionSystem(needs);
    ensureNodeModules();
    if (needs.chromium) provisionSandboxPython();
  }
  if (process.env.WDS_SKIP_BUILD !== '1') build();
}

module.exports = { ROOT, prepare, provisionSystem, ensureNodeModules, nodeModulesState, build, findChromium };
