'use strict';
// Metric names as Prometheus sees them (OpenTelemetry Collector `prometheus` exporter, the
// deploy/otel-collector.yaml pipeline) and as the Grafana dashboard queries them.
const fs = require('node:fs');

// Metrics the dashboard takes from other exporters, not from the services' OTLP export.
const EXTERNAL_METRIC_PREFIXES = [
  'jetstream_', // NATS: prometheus-nats-exporter (-jsz), as the official nats chart's promExporter
  'kube_', // kube-state-metrics
  'container_', // the kubelet's cAdvisor
];

const UNIT_SUFFIX = { s: 'seconds', ms: 'milliseconds', By: 'bytes', 1: 'ratio', min: 'minutes', h: 'hours' };

/** The series names one OTLP metric becomes in Prometheus (with unit and type suffixes). */
function prometheusNames(metric) {
  let name = metric.name.replace(/[^a-zA-Z0-9_:]/g, '_');
  const unit =
    UNIT_SUFFIX[metric.unit] ??
    (metric.unit && !metric.unit.startsWith('{') ? metric.unit.replace(/[^a-zA-Z0-9]/g, '_') : '');
  // Gauges with unit "1" are ratios; counters and histograms in "1" get no suffix.
  if (unit && !(unit === 'ratio' && metric.kind !== 'gauge') && !name.endsWith(`_${unit}`))
    name = `${name}_${unit}`;
  if (metric.kind === 'histogram' || metric.kind === 'exponentialHistogram')
    return [`${name}_bucket`, `${name}_sum`, `${name}_count`];
  if (metric.kind === 'sum' && metric.monotonic) return [name.endsWith('_total') ? name : `${name}_total`];
  return [name];
}

/** Every metric name in the dashboard's PromQL expressions. */
function metricNamesInDashboard(file) {
  const dash = JSON.parse(fs.readFileSync(file, 'utf8'));
  const exprs = [];
  const walk = (v) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === 'object')
      for (const [k, x] of Object.entries(v))
        (k === 'expr' || k === 'definition') && typeof x === 'string' ? exprs.push(x) : walk(x);
  };
  walk(dash);
  const names = new Set();
  // Template variables: label_values(<metric>{...}, <label>) names one metric.
  for (const [i, e] of exprs.entries()) {
    const lv = /^label_values\(\s*([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(e);
    if (lv) exprs[i] = lv[1];
  }
  const FUNCS =
    /^(sum|max|min|avg|count|rate|irate|increase|histogram_quantile|by|without|on|ignoring|label_replace|topk|bottomk|clamp_min|clamp_max|abs|time|vector|scalar|delta|deriv|and|or|unless|offset|le|group_left|group_right|sort|sort_desc|avg_over_time|max_over_time|min_over_time|sum_over_time)$/;
  for (const e of exprs) {
    const stripped = e
      .replace(/\{[^}]*\}/g, '')
      .replace(/"[^"]*"/g, '')
      .replace(/\[[^\]]*\]/g, '')
      .replace(/\bby\s*\([^)]*\)/g, '');
    for (const m of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
      if (!FUNCS.test(m[0]) && !/^\d/.test(m[0])) names.add(m[0]);
    }
  }
  return [...names].sort();
}

module.exports = { EXTERNAL_METRIC_PREFIXES, prometheusNames, metricNamesInDashboard };
