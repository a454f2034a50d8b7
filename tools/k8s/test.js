#!/usr/bin/env node
'use strict';
// `npm run test:k8s` (and .ci/run after `npm test`): the Helm charts against a real control plane.
// Builds or reuses etcd, kube-apiserver, kube-controller-manager, kubectl and helm (Go module proxy,
// cached outside the repository: tools/k8s/build-binaries.sh), lints every chart, checks that the
// schemas refuse invalid values, starts the control plane on 127.0.0.1 and installs the umbrella
// chart for real (defaults, every deploy/values*.yaml, an upgrade, KEDA, the LLM server, SearXNG),
// then prints `N passed, N failed`. WDS_K8S_KEEP=1 keeps the temporary directory (logs, kubeconfig).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { log, run, must, Reporter } = require('./lib/run');
const { startCluster } = require('./lib/cluster');
const { Kube } = require('./lib/kube');
const { staticChecks } = require('./lib/static-checks');
const { clusterChecks } = require('./lib/cluster-checks');
const { bundledStaticChecks, bundledClusterChecks } = require('./lib/bundled-checks');
const { imageChecks } = require('./lib/image-checks');

const ROOT = path.resolve(__dirname, '..', '..');
// The Go toolchain builds the control plane; it may be installed without being on PATH.
if (run('go', ['version']).code !== 0 && fs.existsSync('/usr/local/go/bin/go')) {
  process.env.PATH = `/usr/local/go/bin:${process.env.PATH}`;
}

// All by default (CI); WDS_K8S_PARTS=charts,cluster (or image) narrows a developer's run.
const PARTS = new Set((process.env.WDS_K8S_PARTS || 'image,charts,cluster').split(','));

async function main() {
  const t0 = Date.now();
  const t = new Reporter();
  if (PARTS.has('image')) {
    console.log(
      '\nthe image without Docker (deploy/Dockerfile build stage run natively, services from the pruned tree)',
    );
    await imageChecks(t, { root: ROOT });
  }
  if (!PARTS.has('charts') && !PARTS.has('cluster')) return t.summary();
  log('control-plane binaries (tools/k8s/build-binaries.sh)');
  const build = spawnSync('bash', [path.join(__dirname, 'build-binaries.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (build.status !== 0) throw new Error(`building the control plane failed (exit ${build.status})`);
  const bin = build.stdout.trim().split('\n').pop();
  log(`binaries in ${bin} (${((Date.now() - t0) / 1000).toFixed(0)} s)`);

  // The charts are copied: vendoring their file:// dependencies writes into charts/*/charts.
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'wds-charts-'));
  const charts = path.join(work, 'charts');
  fs.cpSync(path.join(ROOT, 'charts'), charts, {
    recursive: true,
    filter: (src) => !/\/charts\/[^/]+\/charts\/[^/]+\.tgz$/.test(src),
  });
  const helmEnv = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH}`,
    HELM_CACHE_HOME: path.join(work, 'helm', 'cache'),
    HELM_CONFIG_HOME: path.join(work, 'helm', 'config'),
    HELM_DATA_HOME: path.join(work, 'helm', 'data'),
    // No cluster for the static checks: helm must not pick up a developer's kubeconfig.
    KUBECONFIG: path.join(work, 'no-kubeconfig'),
  };
  must(run('bash', [path.join(charts, 'build-deps.sh')], { env: helmEnv }), 'charts/build-deps.sh');
  const helm = (args) => run(path.join(bin, 'helm'), args, { env: helmEnv });

  if (PARTS.has('charts')) {
    console.log('\nchart checks (no cluster)');
    await staticChecks(t, { helm, charts, root: ROOT });
    await bundledStaticChecks(t, { helm, charts });
  }
  if (!PARTS.has('cluster')) return t.summary();

  console.log('\nreal control plane (etcd, kube-apiserver, kube-controller-manager on 127.0.0.1)');
  let cluster;
  await t.check('control plane starts and is ready', async () => {
    cluster = await startCluster({ bin, log });
  });
  if (cluster) {
    try {
      const kube = new Kube({ bin, env: cluster.env, workDir: work });
      await clusterChecks(t, { kube, charts, root: ROOT });
      await bundledClusterChecks(t, { kube, charts });
    } finally {
      await cluster.stop();
    }
  }
  if (!process.env.WDS_K8S_KEEP) fs.rmSync(work, { recursive: true, force: true });
  log(`took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return t.summary();
}

main().then(
  (code) => process.exit(code),
  (err) => {
    log(err.stack || err.message);
    console.log('\n0 passed, 1 failed');
    process.exit(1);
  },
);
