'use strict';
// The optional bundled NATS and PostgreSQL (global.bundled.*, charts/nats and charts/postgresql):
// lint, what the services are wired to, the NATS configuration on a real nats-server, and (with
// the control plane) a real install whose StatefulSets get admitted Pods and whose generated
// database password survives an upgrade.
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { run, must, assert } = require('./run');
const { SERVICES } = require('./static-checks');

const BUNDLED = ['--set', 'global.bundled.nats=true', '--set', 'global.bundled.postgresql=true'];

/** The documents of a `helm template` stream, parsed enough to find kinds, names and env. */
function documents(manifest) {
  return manifest
    .split(/^---$/m)
    .map((text) => ({
      text,
      kind: /^kind: (\S+)$/m.exec(text)?.[1],
      name: /^ {2}name: (\S+)$/m.exec(text)?.[1],
    }))
    .filter((d) => d.kind);
}

/**
 * A NATS client's handshake by hand (INFO, CONNECT with `token` when given, PING): the server's
 * first answer after CONNECT, `PONG` or `-ERR 'Authorization Violation'`.
 */
function natsHandshake(port, token) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let buf = '';
    let sent = false;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer from nats-server on ${port}: ${buf}`));
    }, 10_000);
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('data', (chunk) => {
      buf += chunk.toString();
      if (!sent && buf.includes('\r\n')) {
        sent = true;
        buf = '';
        const opts = { verbose: false, pedantic: false, ...(token ? { auth_token: token } : {}) };
        socket.write(`CONNECT ${JSON.stringify(opts)}\r\nPING\r\n`);
        return;
      }
      const line = sent && buf.includes('\r\n') ? buf.split('\r\n')[0] : undefined;
      if (line !== undefined) {
        clearTimeout(timer);
        socket.destroy();
        resolve(line);
      }
    });
  });
}

async function bundledStaticChecks(t, { helm, charts }) {
  for (const chart of ['nats', 'postgresql']) {
    await t.check(`${chart} (bundled): helm lint --strict`, () => {
      must(helm(['lint', '--strict', path.join(charts, chart)]), `helm lint ${chart}`);
    });
  }
  await t.check('nats (bundled): a 3-server cluster renders its routes; 2 servers are refused', () => {
    const out = must(helm(['template', 'r', path.join(charts, 'nats'), '--set', 'replicas=3']), 'template');
    for (let i = 0; i < 3; i++)
      assert(out.includes(`nats://r-nats-${i}.r-nats-headless.default.svc:6222`), `no route to r-nats-${i}`);
    const two = helm(['template', 'r', path.join(charts, 'nats'), '--set', 'replicas=2']);
    assert(two.code !== 0 && /replicas/.test(two.stderr), 'replicas=2 (no JetStream quorum) was accepted');
  });

  await t.check(
    'umbrella with global.bundled: NATS_URL and DATABASE_URL point at the release’s servers, migrations run at start',
    () => {
      const out = must(
        helm(['template', 'wds', path.join(charts, 'wds'), '-n', 'wds', ...BUNDLED]),
        'helm template bundled',
      );
      const docs = documents(out);
      const sts = docs.filter((d) => d.kind === 'StatefulSet').map((d) => d.name);
      assert(sts.includes('wds-nats') && sts.includes('wds-postgresql'), `StatefulSets: ${sts.join(', ')}`);
      // The bundled NATS's URL carries its generated token, so it comes from its Secret.
      const natsSecret = docs.find((d) => d.kind === 'Secret' && d.name === 'wds-nats');
      const token = natsSecret && /^ {2}token: "([A-Za-z0-9]{48})"$/m.exec(natsSecret.text)?.[1];
      assert(token, 'the bundled NATS Secret has no 48-character token');
      assert(
        natsSecret.text.includes(`NATS_URL: "nats://${token}@wds-nats:4222"`),
        'the bundled NATS Secret has no NATS_URL carrying its token',
      );
      const natsSts = docs.find((d) => d.kind === 'StatefulSet' && d.name === 'wds-nats');
      assert(
        /- name: NATS_TOKEN\n\s+valueFrom: \{ secretKeyRef: \{ name: wds-nats, key: token \} \}/.test(
          natsSts.text,
        ),
        'nats-server does not get NATS_TOKEN from its Secret',
      );
      for (const svc of SERVICES) {
        const cm = docs.find((d) => d.kind === 'ConfigMap' && d.name === `wds-${svc}`);
        assert(cm && !/NATS_URL/.test(cm.text), `${svc}: NATS_URL is in the ConfigMap`);
        assert(!/WDS_MIGRATE_ON_START: "false"/.test(cm.text), `${svc}: migrations are off at start`);
        const dep = docs.find((d) => d.kind === 'Deployment' && d.name === `wds-${svc}`);
        assert(
          /- name: NATS_URL\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: wds-nats\n\s+key: NATS_URL/.test(
            dep.text,
          ),
          `${svc}: NATS_URL does not come from the bundled NATS Secret`,
        );
        assert(
          /- name: DATABASE_URL\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: wds-postgresql\n\s+key: DATABASE_URL/.test(
            dep.text,
          ),
          `${svc}: DATABASE_URL does not come from the bundled Secret`,
        );
      }
      const hooks = docs.filter((d) => d.kind === 'Job' && /-migrate$/.test(d.name ?? ''));
      assert(hooks.length === 0, `migration hook Jobs rendered: ${hooks.map((d) => d.name).join(', ')}`);
      // Without the switch nothing of it renders.
      const plain = documents(
        must(helm(['template', 'wds', path.join(charts, 'wds'), '-n', 'wds']), 'template'),
      );
      assert(!plain.some((d) => d.kind === 'StatefulSet'), 'a StatefulSet renders without global.bundled');
    },
  );

  await t.check(
    'nats (bundled): its rendered configuration starts a real nats-server with JetStream that admits only its token',
    async () => {
      const which = run('nats-server', ['--version']);
      assert(which.code === 0, `nats-server is not installed: ${which.stderr}`);
      const out = must(
        helm(['template', 'r', path.join(charts, 'nats'), '--show-only', 'templates/configmap.yaml']),
        'template configmap',
      );
      // The ConfigMap's nats.conf block, de-indented; directories and ports moved to free local ones.
      const block = out.split('nats.conf: |\n')[1];
      const conf = block
        .split('\n')
        .map((l) => l.replace(/^ {4}/, ''))
        .join('\n');
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-bundled-nats-'));
      const client = 20000 + Math.floor(Math.random() * 20000);
      const monitor = client + 1;
      fs.writeFileSync(
        path.join(dir, 'nats.conf'),
        conf
          .replace('store_dir: /data', `store_dir: ${path.join(dir, 'js')}`)
          .replace('/var/run/nats/nats.pid', path.join(dir, 'nats.pid'))
          .replace('0.0.0.0:4222', `127.0.0.1:${client}`)
          .replace('0.0.0.0:8222', `127.0.0.1:${monitor}`),
      );
      const token = 'T'.repeat(8) + Math.random().toString(36).slice(2).padEnd(12, 'x');
      const child = spawn('nats-server', ['--config', path.join(dir, 'nats.conf')], {
        env: { ...process.env, POD_NAME: 'r-nats-0', NATS_TOKEN: token },
        stdio: 'ignore',
      });
      try {
        let status = '';
        for (const end = Date.now() + 30_000; Date.now() < end;) {
          status = await fetch(`http://127.0.0.1:${monitor}/healthz?js-enabled-only=true`)
            .then((r) => r.text())
            .catch(() => '');
          if (/"ok"/.test(status)) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        assert(/"ok"/.test(status), `JetStream did not come up: ${status}`);
        const jsz = await (await fetch(`http://127.0.0.1:${monitor}/jsz`)).json();
        assert(jsz.config?.max_storage === 8 * 1024 ** 3, `JetStream file store ${jsz.config?.max_storage}`);
        const admitted = await natsHandshake(client, token);
        assert(admitted === 'PONG', `the token was not admitted: ${admitted}`);
        for (const bad of [undefined, `${token}x`]) {
          const refused = await natsHandshake(client, bad);
          assert(/Authorization Violation/i.test(refused), `a client without the token got: ${refused}`);
        }
      } finally {
        child.kill('SIGKILL');
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
}

async function bundledClusterChecks(t, { kube, charts }) {
  const ns = 'wds-bundled';
  const chart = path.join(charts, 'wds');
  let installed = false;
  await t.check('global.bundled: helm install ends deployed with no migration hook', async () => {
    kube.createRestrictedNamespace(ns);
    const r = await kube.helmWithHooks(
      ['install', 'wds', chart, '-n', ns, '--timeout', '5m', ...BUNDLED],
      ns,
    );
    assert(r.code === 0, `helm install failed:\n${(r.stderr || r.stdout).trim().slice(-3000)}`);
    assert(kube.releaseStatus('wds', ns) === 'deployed', `release status ${kube.releaseStatus('wds', ns)}`);
    assert(r.jobs.length === 0, `hook Jobs ran: ${r.jobs.join(', ')}`);
    kube.releaseObjects('wds', ns);
    installed = true;
  });
  if (!installed) return;
  await t.check(
    'global.bundled: NATS and PostgreSQL Pods admitted under PodSecurity restricted',
    async () => {
      const last = await kube.eventually(60_000, () => {
        const pods = kube.json(['get', 'pods', '-n', ns]).items.map((p) => p.metadata.name);
        const ok = pods.includes('wds-nats-0') && pods.includes('wds-postgresql-0');
        const events = ok
          ? []
          : kube
              .json(['get', 'events', '-n', ns])
              .items.filter((e) => /StatefulSet/.test(e.involvedObject.kind) && e.type === 'Warning')
              .map((e) => e.message);
        return { ok, pods, events };
      });
      assert(last.ok, `pods: ${last.pods.join(', ')}; warnings: ${last.events.join(' | ')}`);
      const settled = await kube.deploymentsSettled(ns);
      assert(settled.ok, settled.problems.join('\n'));
    },
  );
  await t.check(
    'global.bundled: the generated database password and NATS token survive helm upgrade',
    async () => {
      const before = kube.json(['get', 'secret', 'wds-postgresql', '-n', ns]).data;
      assert(before.password && before.DATABASE_URL, 'the bundled Secret has no password or DATABASE_URL');
      const natsBefore = kube.json(['get', 'secret', 'wds-nats', '-n', ns]).data;
      assert(natsBefore.token && natsBefore.NATS_URL, 'the bundled NATS Secret has no token or NATS_URL');
      const r = await kube.helmWithHooks(
        [
          'upgrade',
          'wds',
          chart,
          '-n',
          ns,
          '--reuse-values',
          '--set',
          'global.env.LOG_LEVEL=debug',
          '--timeout',
          '5m',
        ],
        ns,
      );
      assert(r.code === 0, `helm upgrade failed:\n${r.stderr.trim().slice(-3000)}`);
      const after = kube.json(['get', 'secret', 'wds-postgresql', '-n', ns]).data;
      assert(after.password === before.password, 'the upgrade changed the database password');
      assert(after.DATABASE_URL === before.DATABASE_URL, 'the upgrade changed DATABASE_URL');
      const natsAfter = kube.json(['get', 'secret', 'wds-nats', '-n', ns]).data;
      assert(natsAfter.token === natsBefore.token, 'the upgrade changed the NATS token');
      assert(natsAfter.NATS_URL === natsBefore.NATS_URL, 'the upgrade changed NATS_URL');
    },
  );
}

module.exports = { bundledStaticChecks, bundledClusterChecks };
