'use strict';
// A real Kubernetes control plane on loopback: etcd, kube-apiserver (RBAC, PodSecurity admission,
// every built-in validation) and kube-controller-manager (Deployments -> ReplicaSets -> Pods, Jobs,
// HPAs, garbage collection). No kubelet: Pods are admitted and stay Pending.
const { spawn, execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const CONTROLLERS = [
  'deployment-controller',
  'replicaset-controller',
  // The bundled NATS and PostgreSQL (global.bundled) are StatefulSets.
  'statefulset-controller',
  'job-controller',
  'horizontal-pod-autoscaler-controller',
  'disruption-controller',
  'serviceaccount-controller',
  'namespace-controller',
  'garbage-collector-controller',
  'ttl-after-finished-controller',
  'endpointslice-controller',
].join(',');

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the control plane from the binaries in `bin` under a fresh temporary directory.
 * Returns { kubeconfig, env, stop() }; `env` puts the binaries first on PATH and sets KUBECONFIG.
 */
async function startCluster({ bin, log }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-k8s-'));
  const [etcdClient, etcdPeer, etcdMetrics, apiPort, kcmPort] = await Promise.all(
    Array.from({ length: 5 }, freePort),
  );
  const procs = [];
  const logs = path.join(dir, 'logs');
  fs.mkdirSync(logs);

  const run = (name, args) => {
    const out = fs.openSync(path.join(logs, `${name}.log`), 'a');
    const child = spawn(path.join(bin, name), args, { stdio: ['ignore', out, out], detached: false });
    fs.closeSync(out);
    child.name = name;
    child.exited = new Promise((resolve) => child.on('exit', (code, sig) => resolve(code ?? sig)));
    procs.push(child);
    return child;
  };
  const tail = (name) => {
    try {
      return fs
        .readFileSync(path.join(logs, `${name}.log`), 'utf8')
        .split('\n')
        .slice(-30)
        .join('\n');
    } catch {
      return '';
    }
  };

  const stop = async () => {
    for (const p of [...procs].reverse()) {
      if (p.exitCode === null && p.signalCode === null) p.kill('SIGTERM');
      const done = await Promise.race([p.exited, sleep(10_000).then(() => 'timeout')]);
      if (done === 'timeout') p.kill('SIGKILL');
    }
    if (!process.env.WDS_K8S_KEEP) fs.rmSync(dir, { recursive: true, force: true });
    else log(`kept ${dir}`);
  };

  try {
    run('etcd', [
      `--data-dir=${path.join(dir, 'etcd')}`,
      '--name=local',
      `--listen-client-urls=http://127.0.0.1:${etcdClient}`,
      `--advertise-client-urls=http://127.0.0.1:${etcdClient}`,
      `--listen-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${etcdPeer}`,
      `--initial-cluster=local=http://127.0.0.1:${etcdPeer}`,
      `--listen-metrics-urls=http://127.0.0.1:${etcdMetrics}`,
      '--log-level=warn',
      '--unsafe-no-fsync',
    ]);

    const saKey = path.join(dir, 'sa.key');
    const saPub = path.join(dir, 'sa.pub');
    const { privateKey, publicKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    fs.writeFileSync(saKey, privateKey.export({ type: 'pkcs1', format: 'pem' }), { mode: 0o600 });
    fs.writeFileSync(saPub, publicKey.export({ type: 'spki', format: 'pem' }));
    const token = crypto.randomBytes(24).toString('hex');
    fs.writeFileSync(path.join(dir, 'tokens.csv'), `${token},admin,admin,system:masters\n`, { mode: 0o600 });
    const kubeconfig = path.join(dir, 'kubeconfig');
    fs.writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: local',
        '  cluster:',
        `    server: https://127.0.0.1:${apiPort}`,
        '    insecure-skip-tls-verify: true',
        'users:',
        '- name: admin',
        '  user:',
        `    token: ${token}`,
        'contexts:',
        '- name: local',
        '  context: { cluster: local, user: admin }',
        'current-context: local',
        '',
      ].join('\n'),
      { mode: 0o600 },
    );

    await waitFor(`etcd on ${etcdClient}`, 60_000, () => tcpOpen(etcdClient), procs, tail);
    run('kube-apiserver', [
      `--etcd-servers=http://127.0.0.1:${etcdClient}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--cert-dir=${path.join(dir, 'certs')}`,
      `--token-auth-file=${path.join(dir, 'tokens.csv')}`,
      '--authorization-mode=RBAC',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${saPub}`,
      `--service-account-signing-key-file=${saKey}`,
      '--service-cluster-ip-range=10.96.0.0/16',
      '--endpoint-reconciler-type=none',
      '--profiling=false',
    ]);
    const env = {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      KUBECONFIG: kubeconfig,
      HELM_CACHE_HOME: path.join(dir, 'helm', 'cache'),
      HELM_CONFIG_HOME: path.join(dir, 'helm', 'config'),
      HELM_DATA_HOME: path.join(dir, 'helm', 'data'),
    };
    const kubectl = (...args) =>
      execFileSync(path.join(bin, 'kubectl'), args, {
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    await waitFor(
      'kube-apiserver readiness',
      120_000,
      () => {
        try {
          return kubectl('get', '--raw', '/readyz').trim() === 'ok';
        } catch {
          return false;
        }
      },
      procs,
      tail,
    );
    run('kube-controller-manager', [
      `--kubeconfig=${kubeconfig}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${kcmPort}`,
      `--service-account-private-key-file=${saKey}`,
      '--use-service-account-credentials=false',
      '--leader-elect=false',
      `--controllers=${CONTROLLERS}`,
      // HPAs raise Deployments to minReplicas within seconds instead of 15 s.
      '--horizontal-pod-autoscaler-sync-period=2s',
    ]);
    await waitFor(
      'kube-controller-manager health',
      60_000,
      () => {
        try {
          execFileSync('curl', ['-sfk', `https://127.0.0.1:${kcmPort}/healthz`], { stdio: 'ignore' });
          return true;
        } catch {
          return false;
        }
      },
      procs,
      tail,
    );
    log(`control plane up: api https://127.0.0.1:${apiPort}, etcd ${etcdClient} (${dir})`);
    return { dir, kubeconfig, env, kubectl, stop, tail };
  } catch (err) {
    await stop();
    throw err;
  }
}

function tcpOpen(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

async function waitFor(what, timeoutMs, check, procs, tail) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const dead = procs.find((p) => p.exitCode !== null || p.signalCode !== null);
    if (dead) throw new Error(`${dead.name} exited while waiting for ${what}:\n${tail(dead.name)}`);
    if (await check()) return;
    await sleep(500);
  }
  throw new Error(`timed out waiting for ${what}`);
}

module.exports = { startCluster, sleep };
