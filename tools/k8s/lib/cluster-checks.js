'use strict';
// Real installs on the local control plane: release deployed, every object admitted, Deployments
// turned into ReplicaSets and Pods under PodSecurity `restricted`, hook Jobs, upgrade, KEDA.
const path = require('node:path');
const { run, must, assert, log } = require('./run');
const { deployValueFiles, SERVICES } = require('./static-checks');

const KEDA_MODULE = 'github.com/kedacore/keda/v2';
const KEDA_VERSION = process.env.WDS_KEDA_VERSION || 'v2.21.0';
// What the umbrella scales with KEDA when global.keda.enabled (the rest keep the CPU HPA).
const KEDA_SCALED = {
  scraper: 'nats-jetstream',
  crawler: 'nats-jetstream',
  batch: 'nats-jetstream',
  webhooks: 'postgresql',
  'browser-pool': 'prometheus',
};

async function installAndVerify(t, kube, { label, namespace, chart, args }) {
  let installed = false;
  await t.check(
    `${label}: helm install (no dry run) into a PodSecurity-restricted namespace ends 'deployed'`,
    async () => {
      kube.createRestrictedNamespace(namespace);
      const r = await kube.helmWithHooks(
        ['install', 'wds', chart, '-n', namespace, '--timeout', '5m', ...args],
        namespace,
      );
      assert(r.code === 0, `helm install failed:\n${(r.stderr || r.stdout).trim().slice(-3000)}`);
      const status = kube.releaseStatus('wds', namespace);
      assert(status === 'deployed', `release status ${status}`);
      const want = SERVICES.map((s) => `wds-${s}-migrate`);
      const missing = want.filter((j) => !r.jobs.includes(j));
      assert(
        missing.length === 0,
        `migration hook Jobs never created a Pod: ${missing.join(', ')} (seen: ${r.jobs.join(', ')})`,
      );
      installed = true;
    },
  );
  if (!installed) return false;
  await t.check(`${label}: every object of the release exists on the API server`, () => {
    const objects = kube.releaseObjects('wds', namespace);
    assert(objects.length > SERVICES.length * 5, `only ${objects.length} objects`);
  });
  await t.check(`${label}: every Deployment has its ReplicaSet and all its Pods admitted`, async () => {
    const r = await kube.deploymentsSettled(namespace);
    assert(r.count === SERVICES.length, `${r.count} Deployments`);
    assert(r.ok, r.problems.join('\n'));
  });
  return true;
}

/** The optional in-cluster LLM server (templates/llm-server.yaml) under the services' PodSecurity level. */
async function llmServerChecks(t, { kube, chart }) {
  await t.check(
    'llmServer.enabled=true: the LLM server Pod is admitted under PodSecurity restricted, with its drain and grace period',
    async () => {
      const ns = 'wds-llm';
      kube.createRestrictedNamespace(ns);
      const r = await kube.helmWithHooks(
        ['install', 'wds', chart, '-n', ns, '--set', 'llmServer.enabled=true', '--timeout', '2m'],
        ns,
      );
      assert(r.code === 0, `helm install failed:\n${r.stderr.slice(-1500)}`);
      const settled = await kube.deploymentsSettled(ns);
      assert(settled.ok, settled.problems.join('\n'));
      assert(settled.count === SERVICES.length + 1, `${settled.count} Deployments`);
      const pods = kube.json(['get', 'pods', '-n', ns, '-l', 'app.kubernetes.io/name=wds-llm']).items;
      assert(pods.length === 1, `${pods.length} LLM server Pods`);
      const spec = pods[0].spec;
      assert(spec.terminationGracePeriodSeconds === 60, `grace period ${spec.terminationGracePeriodSeconds}`);
      const env = Object.fromEntries(spec.containers[0].env.map((e) => [e.name, e.value]));
      assert(env.DRAIN_SECONDS === '50', `DRAIN_SECONDS ${env.DRAIN_SECONDS}`);
      assert(
        spec.automountServiceAccountToken === false,
        'the LLM server Pod mounts a service-account token',
      );
      kube.json(['get', 'networkpolicy', 'wds-llm', '-n', ns]);
    },
  );
}

/** The optional in-cluster SearXNG (templates/searxng.yaml), the same way: admitted, and its secret kept. */
async function searxngChecks(t, { kube, chart }) {
  const ns = 'wds-searxng';
  let installed = false;
  await t.check(
    'searxng.enabled=true: the SearXNG Pod is admitted under PodSecurity restricted, without a token or service links',
    async () => {
      kube.createRestrictedNamespace(ns);
      const r = await kube.helmWithHooks(
        ['install', 'wds', chart, '-n', ns, '--set', 'searxng.enabled=true', '--timeout', '2m'],
        ns,
      );
      assert(r.code === 0, `helm install failed:\n${r.stderr.slice(-1500)}`);
      installed = true;
      const settled = await kube.deploymentsSettled(ns);
      assert(settled.ok, settled.problems.join('\n'));
      assert(settled.count === SERVICES.length + 1, `${settled.count} Deployments`);
      const pods = kube.json(['get', 'pods', '-n', ns, '-l', 'app.kubernetes.io/name=wds-searxng']).items;
      assert(pods.length === 1, `${pods.length} SearXNG Pods`);
      const spec = pods[0].spec;
      assert(spec.automountServiceAccountToken === false, 'the SearXNG Pod mounts a service-account token');
      assert(spec.enableServiceLinks === false, 'the SearXNG Pod gets service-link variables');
      const secretRef = spec.containers[0].env.find((e) => e.name === 'SEARXNG_SECRET')?.valueFrom
        ?.secretKeyRef;
      assert(secretRef?.name === 'wds-searxng', `SEARXNG_SECRET from ${JSON.stringify(secretRef)}`);
      kube.json(['get', 'networkpolicy', 'wds-searxng', '-n', ns]);
    },
  );
  if (!installed) return;
  await t.check(
    'searxng: helm upgrade keeps the generated secret key and rolls the Pod on a settings change',
    async () => {
      const secret = () => kube.json(['get', 'secret', 'wds-searxng', '-n', ns]).data.SEARXNG_SECRET;
      const before = secret();
      assert(Buffer.from(before ?? '', 'base64').length === 48, 'no 48-character SEARXNG_SECRET');
      const rsBefore = (await kube.deploymentsSettled(ns)).deps['wds-searxng']?.rs;
      const r = await kube.helmWithHooks(
        [
          'upgrade',
          'wds',
          chart,
          '-n',
          ns,
          '--reuse-values',
          '--set',
          'searxng.requestTimeoutSeconds=3',
          '--timeout',
          '2m',
        ],
        ns,
      );
      assert(r.code === 0, `helm upgrade failed:\n${r.stderr.trim().slice(-1500)}`);
      assert(secret() === before, 'the upgrade changed SEARXNG_SECRET');
      const cm = kube.json(['get', 'configmap', 'wds-searxng', '-n', ns]);
      const timeout = JSON.parse(cm.data['overrides.json']).outgoing.request_timeout;
      assert(timeout === 3, `overrides.json request_timeout ${timeout}`);
      const after = await kube.deploymentsSettled(ns, 60_000, { rolling: true });
      assert(after.ok, after.problems.join('\n'));
      const rs = after.deps['wds-searxng']?.rs;
      assert(rs === rsBefore + 1, `SearXNG ReplicaSets ${rsBefore} -> ${rs}: the Pod did not roll`);
    },
  );
}

async function clusterChecks(t, { kube, charts, root }) {
  const chart = path.join(charts, 'wds');
  const defaultsOk = await installAndVerify(t, kube, {
    label: 'defaults',
    namespace: 'wds-defaults',
    chart,
    args: [],
  });
  for (const file of deployValueFiles(root)) {
    const base = path.basename(file).replace(/\.ya?ml$/, '');
    await installAndVerify(t, kube, {
      label: path.relative(root, file),
      namespace: `wds-${base}`,
      chart,
      args: ['-f', file],
    });
  }

  if (defaultsOk) {
    await t.check(
      'helm upgrade with a config change rolls every Deployment to a new ReplicaSet',
      async () => {
        const before = await kube.deploymentsSettled('wds-defaults');
        const r = await kube.helmWithHooks(
          [
            'upgrade',
            'wds',
            chart,
            '-n',
            'wds-defaults',
            '--reuse-values',
            '--set',
            'global.env.LOG_LEVEL=debug',
            '--timeout',
            '5m',
          ],
          'wds-defaults',
        );
        assert(r.code === 0, `helm upgrade failed:\n${r.stderr.trim().slice(-3000)}`);
        assert(
          kube.releaseStatus('wds', 'wds-defaults') === 'deployed',
          'release not deployed after upgrade',
        );
        assert(r.jobs.length >= SERVICES.length, `pre-upgrade hooks ran for ${r.jobs.length} services`);
        const after = await kube.deploymentsSettled('wds-defaults', 60_000, { rolling: true });
        assert(after.ok, after.problems.join('\n'));
        const notRolled = Object.keys(after.deps).filter((d) => after.deps[d].rs !== before.deps[d].rs + 1);
        assert(notRolled.length === 0, `no new ReplicaSet for ${notRolled.join(', ')}`);
        const cm = kube.json(['get', 'configmap', 'wds-gateway', '-n', 'wds-defaults']);
        assert(cm.data.LOG_LEVEL === 'debug', `gateway ConfigMap LOG_LEVEL=${cm.data.LOG_LEVEL}`);
      },
    );
  }

  let crds = false;
  await t.check(`KEDA ${KEDA_VERSION} CRDs (from its Go module) apply and are established`, () => {
    const dl = must(
      run('go', ['mod', 'download', '-json', `${KEDA_MODULE}@${KEDA_VERSION}`], {
        env: { ...process.env, GOFLAGS: '-mod=mod' },
      }),
      'go mod download keda',
    );
    const dir = JSON.parse(dl).Dir;
    for (const crd of ['keda.sh_scaledobjects.yaml', 'keda.sh_triggerauthentications.yaml']) {
      must(
        kube.kubectl(['apply', '--server-side', '-f', path.join(dir, 'config', 'crd', 'bases', crd)]),
        `apply ${crd}`,
      );
    }
    must(
      kube.kubectl([
        'wait',
        '--for=condition=Established',
        '--timeout=60s',
        'crd/scaledobjects.keda.sh',
        'crd/triggerauthentications.keda.sh',
      ]),
      'wait for CRDs',
    );
    crds = true;
  });
  if (crds) {
    const kedaArgs = ['--set', 'global.keda.enabled=true'];
    const ok = await installAndVerify(t, kube, {
      label: 'global.keda.enabled=true',
      namespace: 'wds-keda',
      chart,
      args: kedaArgs,
    });
    if (ok) {
      await t.check(
        'keda: ScaledObjects replace the HPA of the queue-driven services; the others keep the CPU HPA',
        () => {
          const sos = kube.json(['get', 'scaledobjects.keda.sh', '-n', 'wds-keda']).items;
          const hpas = kube.json(['get', 'hpa', '-n', 'wds-keda']).items.map((h) => h.metadata.name);
          for (const [svc, type] of Object.entries(KEDA_SCALED)) {
            const so = sos.find((s) => s.metadata.name === `wds-${svc}`);
            assert(so, `no ScaledObject for ${svc}`);
            assert(
              so.spec.scaleTargetRef.name === `wds-${svc}`,
              `${svc} ScaledObject targets ${so.spec.scaleTargetRef.name}`,
            );
            assert(
              so.spec.triggers.some((tr) => tr.type === type),
              `${svc} has no ${type} trigger`,
            );
            assert(!hpas.includes(`wds-${svc}`), `${svc} still has the chart's HPA`);
          }
          // The gateway has no trigger and its CPU HPA is on by default: it keeps it.
          assert(hpas.includes('wds-gateway'), 'the gateway lost its CPU HPA');
        },
      );
    }
  }

  await llmServerChecks(t, { kube, chart });
  await searxngChecks(t, { kube, chart });

  // The checks above must be able to fail: values the schema would refuse, forced past it.
  await t.check(
    'negative: an ipBlock range the API server refuses makes the install end failed',
    async () => {
      const ns = 'wds-negative-cidr';
      kube.createRestrictedNamespace(ns);
      const r = await kube.helmWithHooks(
        [
          'install',
          'wds',
          chart,
          '-n',
          ns,
          '--skip-schema-validation',
          '--set-json',
          'scraper.networkPolicy.blockedIPv6=["::ffff:0:0/96"]',
          '--timeout',
          '2m',
        ],
        ns,
      );
      assert(r.code !== 0, 'helm install succeeded with ::ffff:0:0/96 in ipBlock.except');
      assert(/NetworkPolicy/.test(r.stderr), `failed for another reason:\n${r.stderr.slice(-1500)}`);
      assert(kube.releaseStatus('wds', ns) === 'failed', `release status ${kube.releaseStatus('wds', ns)}`);
    },
  );
  await t.check(
    'negative: a pod template PodSecurity restricted refuses leaves its Deployment without Pods',
    async () => {
      const ns = 'wds-negative-psa';
      kube.createRestrictedNamespace(ns);
      const r = await kube.helmWithHooks(
        [
          'install',
          'wds',
          chart,
          '-n',
          ns,
          '--skip-schema-validation',
          '--set',
          'gateway.securityContext.runAsUser=0',
          '--set',
          'gateway.migrations.enabled=false',
          '--timeout',
          '2m',
        ],
        ns,
      );
      assert(r.code === 0, `helm install failed:\n${r.stderr.slice(-1500)}`);
      const settled = await kube.deploymentsSettled(ns, 15_000);
      assert(!settled.ok, 'every Deployment settled although the gateway runs as root');
      assert(
        settled.problems.some((p) => p.startsWith('wds-gateway:') && /forbidden|violates/i.test(p)),
        settled.problems.join('\n'),
      );
    },
  );
  // Browser sessions (browser-pool `sessions.enabled`): a Pod PodSecurity restricted refuses, admitted
  // where the namespace allows it, with the fields the sandbox needs kept by the API server (a field
  // behind a disabled feature gate would be dropped silently).
  await t.check(
    'browser sessions on: browser-pool Pods admitted in a privileged namespace with hostUsers false, procMount Unmasked, seccomp/AppArmor Unconfined; refused under restricted',
    async () => {
      const sessionArgs = ['--set', 'browser-pool.sessions.enabled=true', '--timeout', '2m'];
      const ns = 'wds-sessions';
      must(kube.kubectl(['create', 'namespace', ns]), `create namespace ${ns}`);
      must(
        kube.kubectl(['label', 'namespace', ns, 'pod-security.kubernetes.io/enforce=privileged']),
        `label namespace ${ns}`,
      );
      const r = await kube.helmWithHooks(['install', 'wds', chart, '-n', ns, ...sessionArgs], ns);
      assert(r.code === 0, `helm install failed:\n${r.stderr.slice(-1500)}`);
      const settled = await kube.deploymentsSettled(ns);
      assert(settled.ok, settled.problems.join('\n'));
      const pods = kube.json(['get', 'pods', '-n', ns, '-l', 'app.kubernetes.io/name=browser-pool']).items;
      const server = pods.find((p) => p.metadata.labels['app.kubernetes.io/component'] === 'server');
      assert(server, 'no browser-pool Pod');
      const spec = server.spec;
      const c = spec.containers[0];
      assert(spec.hostUsers === false, `hostUsers ${spec.hostUsers}`);
      assert(c.securityContext.procMount === 'Unmasked', `procMount ${c.securityContext.procMount}`);
      assert(spec.securityContext.seccompProfile?.type === 'Unconfined', 'seccomp not Unconfined');
      assert(spec.securityContext.appArmorProfile?.type === 'Unconfined', 'AppArmor not Unconfined');
      assert(
        JSON.stringify(c.securityContext.capabilities.add) ===
          JSON.stringify(['SETUID', 'SETGID', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'KILL']),
        `capabilities ${JSON.stringify(c.securityContext.capabilities)}`,
      );
      const env = Object.fromEntries(c.env.map((e) => [e.name, e.value ?? e.valueFrom?.fieldRef?.fieldPath]));
      assert(env.POD_IP === 'status.podIP', 'POD_IP not from the downward API');
      assert(
        env.WDS_BROWSER_SESSION_ADVERTISE === 'http://$(POD_IP):9300',
        env.WDS_BROWSER_SESSION_ADVERTISE,
      );
      const policy = kube.json(['get', 'networkpolicy', 'wds-browser-pool', '-n', ns]);
      const sessionRule = policy.spec.ingress.find((i) => i.ports?.some((p) => p.port === 9300));
      assert(
        sessionRule?.from?.[0]?.podSelector?.matchLabels?.['app.kubernetes.io/name'] === 'gateway',
        `session port ingress ${JSON.stringify(sessionRule)}`,
      );

      const restricted = 'wds-sessions-restricted';
      kube.createRestrictedNamespace(restricted);
      const refused = await kube.helmWithHooks(
        ['install', 'wds', chart, '-n', restricted, ...sessionArgs],
        restricted,
      );
      assert(refused.code === 0, `helm install failed:\n${refused.stderr.slice(-1500)}`);
      const held = await kube.deploymentsSettled(restricted, 15_000);
      assert(!held.ok, 'browser-pool with sessions settled under PodSecurity restricted');
      assert(
        held.problems.some((p) => p.startsWith('wds-browser-pool:') && /forbidden|violates/i.test(p)),
        held.problems.join('\n'),
      );
      assert(
        held.problems.every((p) => p.startsWith('wds-browser-pool:')),
        `other Deployments held back:\n${held.problems.join('\n')}`,
      );
    },
  );
  log('cluster checks done');
}

module.exports = { clusterChecks, llmServerChecks, searxngChecks };
