import { W3CTraceContextPropagator, W3CBaggagePropagator, CompositePropagator } from '@opentelemetry/core';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import os from 'node:os';
import { NodeSDK, resources, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { AlwaysOffSampler, NoopSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface TelemetryOptions {
  serviceName: string;
  /** Overrides the exporter choice (tests register an in-memory exporter here). */
  spanProcessors?: SpanProcessor[];
  /** Defaults to process.env; telemetry starts before config is parsed, so it reads the standard OTEL_* variables. */
  env?: NodeJS.ProcessEnv;
}

let sdk: NodeSDK | undefined;

/**
 * Starts OpenTelemetry once per process. Call it before NestJS, pg or undici are loaded, so the
 * instrumentations can patch them. Without an OTLP endpoint nothing would be exported, so spans
 * are not recorded either (sampler off, unless OTEL_TRACES_SAMPLER says otherwise): every
 * operation still gets trace and span ids, which appear in logs and propagate over NATS and HTTP,
 * but no span data is built, and the pg and undici instrumentations (whose spans are only
 * leaves) are not installed. Recording every span only to drop it cost about a tenth of each
 * service's CPU on the scrape path (docs/benchmarks.md).
 */
export function startTelemetry(opts: TelemetryOptions): void {
  if (sdk) return;
  const env = opts.env ?? process.env;
  const exporting = Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  // Spans are recorded when exported, handed to the caller's processors, or a sampler is chosen.
  const recording = exporting || Boolean(opts.spanProcessors) || Boolean(env.OTEL_TRACES_SAMPLER);
  const config: Partial<NodeSDKConfiguration> = {
    serviceName: env.OTEL_SERVICE_NAME || opts.serviceName,
    // One instance per process: replicas of a service would otherwise share one identity. The
    // Helm charts also set it (the pod name) with k8s.pod.name / k8s.namespace.name through
    // OTEL_RESOURCE_ATTRIBUTES, which the SDK's environment detector merges over this.
    resource: resources
      .defaultResource()
      .merge(
        resources.resourceFromAttributes({
          'service.instance.id': env.WDS_INSTANCE_ID || `${os.hostname()}-${process.pid}`,
        }),
      ),
    textMapPropagator: new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
    instrumentations: [
      new HttpInstrumentation({
        // Probe traffic would drown real traces.
        ignoreIncomingRequestHook: (req) => (req.url ?? '').startsWith('/health'),
      }),
      // Their spans are leaves (every query, every outbound request): without an exporter or a
      // sampler nothing would record them, and wrapping each call cost ~3% of a service's CPU.
      ...(recording ? [new UndiciInstrumentation(), new PgInstrumentation()] : []),
    ],
  };
  if (opts.spanProcessors) {
    config.spanProcessors = opts.spanProcessors;
  } else if (!exporting) {
    // NodeSDK would otherwise default to OTLP on localhost and log export failures forever.
    config.spanProcessors = [new NoopSpanProcessor()];
  }
  if (!recording) config.sampler = new AlwaysOffSampler();
  if (!exporting) {
    config.metricReaders = [];
    config.logRecordProcessors = [];
  }
  sdk = new NodeSDK(config);
  sdk.start();
}

/** Flushes and stops the SDK; safe to call when telemetry never started. */
export async function shutdownTelemetry(): Promise<void> {
  const current = sdk;
  sdk = undefined;
  if (current) await current.shutdown();
}
