'use strict';
// Chart checks that need helm but no API server: generated schemas, lint of every chart with values
// that make it render, and invalid values the schemas must refuse.
const fs = require('node:fs');
const path = require('node:path');
const { run, must, assert } = require('./run');

const SERVICES = [
  'gateway',
  'scraper',
  'crawler',
  'batch',
  'browser-pool',
  'billing',
  'docs-search',
  'webhooks',
];
const SERVICE_KINDS = ['ServiceAccount', 'ConfigMap', 'Deployment', 'Service', 'NetworkPolicy', 'Job'];
// Switched on for the lint, so every optional template renders and is linted too.
const ALL_ON = [
  '--set',
  'autoscaling.enabled=true',
  '--set',
  'podDisruptionBudget.enabled=true',
  '--set',
  'secretEnv.DATABASE_URL=postgres://lint',
];

/** deploy/values*.yaml: every example values file must install. */
function deployValueFiles(root) {
  return fs
    .readdirSync(path.join(root, 'deploy'))
    .filter((f) => /^values.*\.ya?ml$/.test(f))
    .map((f) => path.join(root, 'deploy', f));
}

/** Kinds in `helm template` output (a YAML stream): counted from the `kind:` lines at column 0. */
function kinds(manifest) {
  const out = {};
  for (const m of manifest.matchAll(/^kind: (\S+)$/gm)) out[m[1]] = (out[m[1]] ?? 0) + 1;
  return out;
}

/**
 * Invalid values, each with what the refusal must mention. Every one of them renders without the
 * schema (most would even install), so these prove the schema bites.
 */
const INVALID = [
  { why: 'a typo under global', args: ['--set', 'global.imagee.repository=x'], expect: /imagee/ },
  { why: 'an unknown service key', args: ['--set', 'scrapper.enabled=true'], expect: /scrapper/ },
  { why: 'a typo in a service', args: ['--set', 'gateway.replicaCont=3'], expect: /replicaCont/ },
  {
    why: 'minReplicas above maxReplicas',
    args: ['--set', 'scraper.autoscaling.minReplicas=5', '--set', 'scraper.autoscaling.maxReplicas=2'],
    expect: /maxReplicas|minReplicas/,
  },
  {
    why: 'a memory quantity that is not one',
    args: ['--set', 'gateway.resources.limits.memory=lots'],
    expect: /memory|pattern/,
  },
  {
    why: 'a CIDR that is not one',
    args: ['--set-json', 'global.networkPolicy.dns.to=[{"ipBlock":{"cidr":"10.0.0.0/33"}}]'],
    expect: /cidr|pattern/i,
  },
  {
    why: 'the IPv4-mapped range the API server refuses in ipBlock.except',
    args: ['--set-json', 'scraper.networkPolicy.blockedIPv6=["::ffff:0:0/96"]'],
    expect: /blockedIPv6|ffff|not/,
  },
  {
    why: 'an image pull policy that does not exist',
    args: ['--set', 'global.image.pullPolicy=Sometimes'],
    expect: /pullPolicy/,
  },
  {
    why: 'a browser-pool memory limit below its browsers + Node + /dev/shm',
    args: ['--set', 'browser-pool.resources.limits.memory=2Gi'],
    expect: /WDS_BROWSER_PROCESSES x WDS_BROWSER_RECYCLE_MB/,
  },
  {
    why: 'a scraper grace period shorter than its longest scrape',
    args: ['--set', 'scraper.terminationGracePeriodSeconds=60'],
    expect: /longestTaskSeconds/,
  },
  {
    why: 'an empty NATS egress peer list (would allow any destination)',
    args: ['--set-json', 'global.networkPolicy.nats.to=[]'],
    expect: /nats\.to is empty/,
  },
  {
    why: 'a typo under llmServer',
    args: ['--set', 'llmServer.enabled=true', '--set', 'llmServer.drainSecond=5'],
    expect: /drainSecond/,
  },
  {
    why: 'a negative drain time for the in-cluster LLM server',
    args: ['--set', 'llmServer.enabled=true', '--set', 'llmServer.drainSeconds=-1'],
    expect: /drainSeconds/,
  },
  {
    why: 'a typo under searxng',
    args: ['--set', 'searxng.enabled=true', '--set', 'searxng.engine=x'],
    expect: /'engine'/,
  },
  {
    why: 'an empty SearXNG engine list (it would keep none and answer every search empty)',
    args: ['--set', 'searxng.enabled=true', '--set-json', 'searxng.engines=[]'],
    expect: /searxng\/engines/,
  },
  {
    why: 'a KEDA lag threshold of zero',
    args: ['--set', 'scraper.keda.lagThreshold=0'],
    expect: /lagThreshold/,
  },
];

async function staticChecks(t, { helm, charts, root }) {
  await t.check('service chart schemas are the generated ones (charts/generate-schemas.js --check)', () => {
    must(
      run(process.execPath, [path.join(root, 'charts', 'generate-schemas.js'), '--check']),
      'generate-schemas --check',
    );
  });

  await t.check('helm lint --strict wds-lib', () => {
    must(helm(['lint', '--strict', path.join(charts, 'wds-lib')]), 'helm lint wds-lib');
  });

  for (const svc of SERVICES) {
    await t.check(
      `${svc}: helm lint --strict (defaults, and with HPA/PDB/Secret on), and it renders every object`,
      () => {
        must(helm(['lint', '--strict', path.join(charts, svc)]), `helm lint ${svc}`);
        must(helm(['lint', '--strict', path.join(charts, svc), ...ALL_ON]), `helm lint ${svc} (all on)`);
        const alone = must(
          helm(['template', 'rel', path.join(charts, svc), '-n', 'ns']),
          `helm template ${svc}`,
        );
        const base = kinds(alone);
        // Installed alone, it talks to the NATS and PostgreSQL pods of its own namespace only.
        assert(
          alone.includes('NATS_URL: "nats://nats:4222"'),
          `${svc} alone: NATS_URL is not the same-namespace nats`,
        );
        for (const dep of ['nats', 'postgresql']) {
          const peer = new RegExp(
            `\\n\\s+- podSelector:\\n\\s+matchLabels:\\n\\s+app\\.kubernetes\\.io/name: ${dep}\\n`,
          );
          assert(peer.test(alone), `${svc} alone: no egress to same-namespace ${dep} pods`);
        }
        const missing = SERVICE_KINDS.filter((kind) => !base[kind]);
        assert(missing.length === 0, `${svc} renders no ${missing.join(', ')} (got ${JSON.stringify(base)})`);
        const all = kinds(
          must(
            helm(['template', 'rel', path.join(charts, svc), '-n', 'ns', ...ALL_ON]),
            `helm template ${svc}`,
          ),
        );
        const off = ['HorizontalPodAutoscaler', 'PodDisruptionBudget', 'Secret'].filter((kind) => !all[kind]);
        assert(off.length === 0, `${svc} renders no ${off.join(', ')} with them on`);
      },
    );
  }

  const valueSets = [
    ['defaults', []],
    ...deployValueFiles(root).map((f) => [path.relative(root, f), ['-f', f]]),
  ];
  for (const [name, args] of valueSets) {
    await t.check(`umbrella: helm lint --strict and template with ${name}`, () => {
      must(helm(['lint', '--strict', path.join(charts, 'wds'), ...args]), `helm lint wds ${name}`);
      const out = must(
        helm(['template', 'wds', path.join(charts, 'wds'), '-n', 'wds', ...args]),
        `helm template wds ${name}`,
      );
      const k = kinds(out);
      assert(
        k.Deployment === SERVICES.length,
        `expected ${SERVICES.length} Deployments, got ${k.Deployment}`,
      );
    });
  }

  await t.check(
    'umbrella with llmServer.enabled: lint, one more Deployment, drains for drainSeconds inside its grace period',
    () => {
      const args = ['--set', 'llmServer.enabled=true', '--set', 'llmServer.drainSeconds=40'];
      must(helm(['lint', '--strict', path.join(charts, 'wds'), ...args]), 'helm lint wds (llmServer on)');
      const out = must(
        helm(['template', 'wds', path.join(charts, 'wds'), '-n', 'wds', ...args]),
        'helm template wds (llmServer on)',
      );
      assert(kinds(out).Deployment === SERVICES.length + 1, `expected ${SERVICES.length + 1} Deployments`);
      const llm = out
        .split(/^---$/m)
        .find((d) => /^kind: Deployment$/m.test(d) && /^  name: wds-llm$/m.test(d));
      assert(llm, 'no wds-llm Deployment');
      assert(/^      terminationGracePeriodSeconds: 50$/m.test(llm), 'grace period is not drainSeconds + 10');
      assert(/--drain-seconds "\$DRAIN_SECONDS"/.test(llm), 'serve_model.py is not given --drain-seconds');
      assert(/name: DRAIN_SECONDS, value: "40"/.test(llm), 'DRAIN_SECONDS is not llmServer.drainSeconds');
      const policy = out
        .split(/^---$/m)
        .find((d) => /^kind: NetworkPolicy$/m.test(d) && /^  name: wds-llm$/m.test(d));
      assert(policy, 'no NetworkPolicy for the LLM server');
      assert(/app.kubernetes.io\/instance: wds$/m.test(policy), 'ingress not limited to the release');
      assert(/- 10\.0\.0\.0\/8$/m.test(policy), 'egress not kept out of private ranges');
    },
  );

  await t.check(
    'umbrella with searxng.enabled: lint, one more Deployment serving on 0.0.0.0, reachable from the gateway only, no egress into the cluster',
    () => {
      const args = [
        '--set',
        'searxng.enabled=true',
        '--set-json',
        'searxng.engines=["duckduckgo","bing news"]',
      ];
      must(helm(['lint', '--strict', path.join(charts, 'wds'), ...args]), 'helm lint wds (searxng on)');
      const out = must(
        helm(['template', 'wds', path.join(charts, 'wds'), '-n', 'wds', ...args]),
        'helm template wds (searxng on)',
      );
      assert(kinds(out).Deployment === SERVICES.length + 1, `expected ${SERVICES.length + 1} Deployments`);
      const docs = out.split(/^---$/m);
      const named = (kind) =>
        docs.find((d) => new RegExp(`^kind: ${kind}$`, 'm').test(d) && /^  name: wds-searxng$/m.test(d));
      const deployment = named('Deployment');
      assert(deployment, 'no wds-searxng Deployment');
      assert(
        /serve_searxng\.py --host 0\.0\.0\.0 --port 8080 --overrides \/config\/overrides\.json/.test(
          deployment,
        ),
        'serve_searxng.py does not listen on 0.0.0.0:8080 with the ConfigMap overrides',
      );
      assert(/provision_searxng\.py \/cache/.test(deployment), 'the venv is not provisioned into /cache');
      assert(/automountServiceAccountToken: false/.test(deployment), 'the SearXNG Pod mounts a token');
      assert(
        /secretKeyRef: \{ name: wds-searxng, key: SEARXNG_SECRET \}/.test(deployment),
        'no SEARXNG_SECRET',
      );
      const config = named('ConfigMap');
      assert(config, 'no wds-searxng ConfigMap');
      const overrides = JSON.parse(/overrides\.json: \|\n([\s\S]*)/.exec(config)[1]);
      assert(
        JSON.stringify(overrides.keep_engines) === '["duckduckgo","bing news"]',
        `keep_engines ${JSON.stringify(overrides.keep_engines)}`,
      );
      assert(overrides.search.formats.includes('json'), 'the JSON API the gateway reads is off');
      assert(overrides.server.limiter === false, 'the limiter would throttle the gateway, its one client');
      assert(overrides.outgoing.request_timeout === 5, 'request_timeout is not requestTimeoutSeconds');
      const secret = named('Secret');
      assert(secret && /SEARXNG_SECRET: "[A-Za-z0-9]{48}"/.test(secret), 'no generated SEARXNG_SECRET');
      const policy = named('NetworkPolicy');
      assert(policy, 'no NetworkPolicy for SearXNG');
      const from = /^ {6}from:\n([\s\S]*?)^ {2}egress:/m.exec(policy)?.[1] ?? '';
      assert(
        /app\.kubernetes\.io\/name: gateway\n\s+app\.kubernetes\.io\/instance: wds\n/.test(from) &&
          (from.match(/podSelector|namespaceSelector|ipBlock/g) ?? []).length === 1,
        `ingress is not the release's gateway alone:\n${from}`,
      );
      assert(/- 10\.0\.0\.0\/8$/m.test(policy), 'egress not kept out of private ranges');
      // The gateway's side: its default extraEgress reaches the SearXNG Pods on 8080.
      const gateway = docs.find((d) => /^kind: NetworkPolicy$/m.test(d) && /^  name: wds-gateway$/m.test(d));
      assert(
        /port: 8080\n\s+protocol: TCP\n\s+to:\n\s+- podSelector:\n\s+matchLabels:\n\s+app\.kubernetes\.io\/name: wds-searxng\n/.test(
          gateway,
        ),
        'the gateway NetworkPolicy does not let it reach SearXNG on 8080',
      );
    },
  );

  await t.check('least privilege: each service gets only the secret variables it reads', () => {
    const secrets = ['DATABASE_URL', 'WDS_ADMIN_TOKEN', 'WDS_BOOTSTRAP_API_KEY', 'WDS_LLM_API_KEY'];
    const sets = secrets.flatMap((k) => ['--set', `global.secretEnv.${k}=value-of-${k}`]);
    for (const mode of [sets, ['--set', 'global.existingSecret=wds-secrets']]) {
      const out = must(
        helm(['template', 'wds', path.join(charts, 'wds'), '-n', 'wds', ...mode]),
        'helm template',
      );
      const docs = out.split(/^---$/m);
      const seen = (svc) => {
        const mine = docs.filter(
          (d) => new RegExp(`^  name: wds-${svc}$`, 'm').test(d) && /^kind: (Secret|Deployment)$/m.test(d),
        );
        return secrets.filter((k) =>
          mine.some((d) => d.includes(`value-of-${k}`) || d.includes(`key: ${k}`)),
        );
      };
      for (const svc of ['scraper', 'browser-pool', 'crawler', 'batch', 'billing', 'webhooks']) {
        const leaked = seen(svc).filter((k) => k === 'WDS_ADMIN_TOKEN' || k === 'WDS_BOOTSTRAP_API_KEY');
        assert(leaked.length === 0, `${svc} gets ${leaked.join(', ')}`);
        assert(seen(svc).includes('DATABASE_URL'), `${svc} does not get DATABASE_URL`);
      }
      assert(seen('gateway').includes('WDS_ADMIN_TOKEN'), 'the gateway does not get WDS_ADMIN_TOKEN');
      const jobs = docs.filter((d) => /^kind: (Job|Secret)$/m.test(d) && /-migrate$/m.test(d));
      for (const j of jobs)
        assert(!/WDS_ADMIN_TOKEN|WDS_LLM_API_KEY/.test(j), 'a migrations Job gets more than DATABASE_URL');
    }
  });

  for (const bad of INVALID) {
    await t.check(`umbrella refuses ${bad.why}`, () => {
      // What install renders: `helm template` runs the same schema validation and template checks.
      // (`helm lint` reports schema errors but, in its lint mode, not a template's `fail`.)
      const r = helm(['template', 'wds', path.join(charts, 'wds'), ...bad.args]);
      assert(r.code !== 0, `helm template accepted ${bad.args.join(' ')}`);
      const text = r.stdout + r.stderr;
      assert(bad.expect.test(text), `refused, but not for the expected reason:\n${text.slice(-1500)}`);
    });
  }
}

module.exports = { staticChecks, deployValueFiles, SERVICES };
