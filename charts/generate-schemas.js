#!/usr/bin/env node
'use strict';
// One source for every chart's values.schema.json: the eight service charts share one schema (only
// `app` differs) and the umbrella's typed `global` is the same definition. Run after editing this
// file; `--check` (npm run test:k8s) fails when a generated file is stale.
//   node charts/generate-schemas.js [--check]
// Cross-field rules JSON Schema cannot express (minReplicas <= maxReplicas, memory budgets, grace
// periods) are enforced by wds-lib's templates (_checks.tpl).
const fs = require('node:fs');
const path = require('node:path');

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

const str = { type: 'string' };
const bool = { type: 'boolean' };
const int = (minimum, maximum) => ({
  type: 'integer',
  minimum,
  ...(maximum === undefined ? {} : { maximum }),
});
const port = int(1, 65535);
const obj = (properties, extra = {}) => ({
  type: 'object',
  additionalProperties: false,
  properties,
  ...extra,
});
const mapOf = (value) => ({ type: 'object', additionalProperties: value });
const scalarMap = mapOf({ type: ['string', 'number', 'boolean'] });
const listOf = (items) => ({ type: 'array', items });

// Kubernetes resource quantities ("250m", "1.5", "512Mi", "2Gi", "1e3"); numbers are accepted too.
const QUANTITY = '^[+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+)?$';
const quantity = {
  oneOf: [
    { type: 'string', pattern: QUANTITY },
    { type: 'number', minimum: 0 },
  ],
};
const resourceList = obj({ cpu: quantity, memory: quantity, 'ephemeral-storage': quantity });
const resources = obj({ requests: resourceList, limits: resourceList });

const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4_CIDR = `^(${OCTET}\\.){3}${OCTET}/(3[0-2]|[12]?[0-9])$`;
const IPV6_CIDR = '^[0-9a-fA-F]{0,4}(:[0-9a-fA-F]{0,4}){1,7}/(12[0-8]|1[01][0-9]|[1-9]?[0-9])$';
const cidr = { type: 'string', anyOf: [{ pattern: IPV4_CIDR }, { pattern: IPV6_CIDR }] };
// The API server refuses IPv4-mapped IPv6 ranges in ipBlock (they are IPv4 traffic: use blockedIPv4).
const ipv6Cidr = {
  type: 'string',
  pattern: IPV6_CIDR,
  not: { pattern: '^::ffff:', description: 'IPv4-mapped' },
};
const ipv4Cidr = { type: 'string', pattern: IPV4_CIDR };

const labelSelector = obj({ matchLabels: mapOf(str), matchExpressions: listOf({ type: 'object' }) });
const peer = obj({
  podSelector: labelSelector,
  namespaceSelector: labelSelector,
  ipBlock: obj({ cidr, except: listOf(cidr) }, { required: ['cidr'] }),
});
const peers = listOf(peer);
const netPort = obj({
  port: { type: ['integer', 'string'] },
  endPort: port,
  protocol: { enum: ['TCP', 'UDP', 'SCTP'] },
});
const egressRule = obj({ to: peers, ports: listOf(netPort) });
const ingressRule = peer;

const envName = '^[A-Za-z_][A-Za-z0-9_]*$';
const envMap = {
  type: 'object',
  propertyNames: { pattern: envName },
  additionalProperties: { type: ['string', 'number', 'boolean'] },
};

// The optional llama.cpp server (charts/wds/templates/llm-server.yaml), every key typed.
// The NetworkPolicy of an optional in-cluster server (llmServer, searxng).
const optionalPodNetworkPolicy = obj({
  enabled: bool,
  ingressFrom: peers,
  blockedIPv4: listOf(ipv4Cidr),
  blockedIPv6: listOf(ipv6Cidr),
});

const llmServerSchema = obj({
  enabled: bool,
  model: {
    type: 'string',
    minLength: 1,
    description:
      'A model of the libs/local-infra catalogue (qwen2.5-coder-1.5b, qwen2.5-coder-0.5b, smollm2-135m).',
  },
  image: { type: 'string', minLength: 1 },
  replicas: int(0),
  contextTokens: int(512, 131072),
  parallel: int(1, 64),
  threads: int(1, 256),
  drainSeconds: {
    ...int(0, 3600),
    description: 'On a stop, how long running and queued requests may take; the grace period is this + 10 s.',
  },
  resources,
  networkPolicy: optionalPodNetworkPolicy,
  persistence: obj({ enabled: bool, size: quantity, storageClassName: str }),
});

// The optional SearXNG (charts/wds/templates/searxng.yaml), every key typed.
const searxngSchema = obj({
  enabled: bool,
  image: { type: 'string', minLength: 1 },
  replicas: int(0),
  engines: {
    ...listOf({ type: 'string', minLength: 1 }),
    minItems: 1,
    description:
      'Engines of the packaged SearXNG settings to keep (duckduckgo, brave, wikipedia, bing, "bing images", ...).',
  },
  requestTimeoutSeconds: {
    type: 'number',
    minimum: 1,
    maximum: 60,
    description: 'How long SearXNG waits for each engine (outgoing.request_timeout).',
  },
  resources,
  networkPolicy: optionalPodNetworkPolicy,
});

// Umbrella keys besides the services: add a dependency's key here.
const UMBRELLA_EXTRA_KEYS = {
  llmServer: llmServerSchema,
  searxng: searxngSchema,
  // The bundled NATS and PostgreSQL (global.bundled): their own charts' schemas check these.
  nats: { type: 'object' },
  postgresql: { type: 'object' },
};

const globalSchema = obj(
  {
    image: obj({ repository: str, tag: str, pullPolicy: { enum: ['', 'Always', 'IfNotPresent', 'Never'] } }),
    imagePullSecrets: listOf(obj({ name: str }, { required: ['name'] })),
    env: envMap,
    secretEnv: envMap,
    bundled: obj(
      { nats: bool, postgresql: bool },
      { description: 'Run NATS / PostgreSQL in the release (charts/nats, charts/postgresql).' },
    ),
    existingSecret: {
      type: 'string',
      description: 'A Secret you manage; each service reads only its secretKeys from it.',
    },
    otel: obj({
      endpoint: {
        type: 'string',
        description: 'OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT); empty = no export.',
      },
      resourceAttributes: scalarMap,
    }),
    networkPolicy: obj({
      dns: obj({ to: peers, port }),
      nats: obj({ to: peers, port }),
      postgres: obj({ to: peers, port }),
      otlp: obj({ to: peers }),
    }),
    keda: obj({
      enabled: bool,
      natsMonitoringEndpoint: {
        type: 'string',
        pattern: '^[^/\\s]+:[0-9]+$',
        description: 'host:port of NATS monitoring (8222)',
      },
      natsAccount: str,
      prometheusServerAddress: { type: 'string', pattern: '^https?://' },
    }),
  },
  { description: 'Settings every service chart shares (typed: a typo is an error).' },
);

const serviceProperties = (app) => ({
  global: globalSchema,
  enabled: { type: 'boolean', description: 'Used by the umbrella chart to switch the service off.' },
  'wds-lib': { type: 'object' },
  app: { const: app },
  nameOverride: str,
  fullnameOverride: str,
  image: obj({ repository: str, tag: str, pullPolicy: { enum: ['', 'Always', 'IfNotPresent', 'Never'] } }),
  imagePullSecrets: listOf(obj({ name: str }, { required: ['name'] })),
  replicaCount: int(0),
  http: obj({ enabled: bool, port }, { required: ['enabled', 'port'] }),
  healthPort: port,
  service: obj({ type: { enum: ['ClusterIP', 'NodePort', 'LoadBalancer'] }, port, annotations: scalarMap }),
  env: envMap,
  secretEnv: envMap,
  secretKeys: {
    type: 'object',
    description:
      'The sensitive variables this service reads (from global.existingSecret or global.secretEnv).',
    propertyNames: { pattern: envName },
    additionalProperties: { enum: ['required', 'optional'] },
  },
  envFromSecrets: listOf(str),
  resources,
  terminationGracePeriodSeconds: int(10, 3600),
  preStopSleepSeconds: int(0, 120),
  longestTaskSeconds: int(0, 3600),
  securityContext: obj({ runAsUser: int(1) }),
  // browser-pool only: its browser sessions' code sandbox (charts/browser-pool/values.yaml).
  sessions: obj({
    enabled: bool,
    perReplica: int(0, 500),
    warmBrowsers: int(0, 16),
    recordingFps: int(1, 15),
    interactRecording: bool,
    port: int(1, 65535),
    uidBase: int(1000, 64000),
    dirSizeLimit: quantity,
    ingressFrom: listOf(ingressRule),
  }),
  shm: obj({ enabled: bool, sizeLimit: quantity }),
  tmpSizeLimit: quantity,
  serviceAccount: obj({ create: bool, name: str, annotations: scalarMap }),
  autoscaling: obj({
    enabled: bool,
    minReplicas: int(1),
    maxReplicas: int(1),
    targetCPUUtilizationPercentage: int(1, 100),
    extraMetrics: listOf({ type: 'object' }),
    behavior: { type: 'object' },
  }),
  keda: obj({
    enabled: bool,
    trigger: { enum: ['', 'nats-jetstream', 'postgresql', 'prometheus'] },
    minReplicas: int(0),
    maxReplicas: int(1),
    pollingInterval: int(1),
    cooldownPeriod: int(0),
    stream: str,
    consumer: str,
    lagThreshold: int(1),
    activationLagThreshold: int(0),
    query: str,
    threshold: { type: 'number', exclusiveMinimum: 0 },
    activationThreshold: { type: 'number', minimum: 0 },
  }),
  podDisruptionBudget: obj({ enabled: bool, maxUnavailable: { type: ['integer', 'string'] } }),
  networkPolicy: obj({
    enabled: bool,
    internetEgress: bool,
    ingressFrom: listOf(ingressRule),
    extraEgress: listOf(egressRule),
    blockedIPv4: listOf(ipv4Cidr),
    blockedIPv6: listOf(ipv6Cidr),
  }),
  migrations: obj({ enabled: bool, backoffLimit: int(0), activeDeadlineSeconds: int(30), resources }),
  podAnnotations: scalarMap,
  podLabels: scalarMap,
  nodeSelector: scalarMap,
  tolerations: listOf({ type: 'object' }),
  affinity: { type: 'object' },
});

function serviceSchema(app) {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: `WDS ${app} chart values (generated by charts/generate-schemas.js)`,
    type: 'object',
    additionalProperties: false,
    required: ['app', 'image', 'http', 'healthPort', 'resources', 'networkPolicy', 'migrations'],
    properties: serviceProperties(app),
  };
}

function umbrellaSchema() {
  // Each service's own values are checked by its chart's schema; here only that the key exists.
  const service = { type: 'object', properties: { enabled: bool } };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'WDS umbrella chart values (generated by charts/generate-schemas.js)',
    type: 'object',
    additionalProperties: false,
    properties: {
      global: globalSchema,
      ...Object.fromEntries(SERVICES.map((s) => [s, service])),
      ...UMBRELLA_EXTRA_KEYS,
    },
  };
}

function main() {
  const check = process.argv.includes('--check');
  const files = [
    ...SERVICES.map((s) => [path.join(__dirname, s, 'values.schema.json'), serviceSchema(s)]),
    [path.join(__dirname, 'wds', 'values.schema.json'), umbrellaSchema()],
  ];
  const stale = [];
  for (const [file, schema] of files) {
    const text = `${JSON.stringify(schema, null, 2)}\n`;
    const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    if (current === text) continue;
    if (check) stale.push(path.relative(process.cwd(), file));
    else fs.writeFileSync(file, text);
  }
  if (stale.length) {
    process.stderr.write(
      `stale generated schemas (run node charts/generate-schemas.js): ${stale.join(', ')}\n`,
    );
    process.exit(1);
  }
}

main();
