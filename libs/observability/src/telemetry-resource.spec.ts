import { trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { shutdownTelemetry, startTelemetry } from './telemetry';

// Its own file: telemetry starts once per process (jest gives each spec file its own globals).
describe('telemetry resource', () => {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor(exporter);
  const saved = process.env.OTEL_RESOURCE_ATTRIBUTES;

  beforeAll(() => {
    // What the Helm charts set from the downward API.
    process.env.OTEL_RESOURCE_ATTRIBUTES = 'k8s.pod.name=scraper-7d9f-abcde,k8s.namespace.name=wds-prod';
    startTelemetry({
      serviceName: 'obs-resource',
      spanProcessors: [processor],
      env: { WDS_INSTANCE_ID: 'scraper-7d9f-abcde' },
    });
  });
  afterAll(async () => {
    await shutdownTelemetry();
    if (saved === undefined) delete process.env.OTEL_RESOURCE_ATTRIBUTES;
    else process.env.OTEL_RESOURCE_ATTRIBUTES = saved;
  });

  it('identifies the instance, pod and namespace on every span', async () => {
    trace.getTracer('t').startActiveSpan('op', (s) => s.end());
    // Exported once the detected (asynchronous) resource attributes have settled.
    await processor.forceFlush();
    const [span] = exporter.getFinishedSpans();
    expect(span.resource.attributes).toMatchObject({
      'service.name': 'obs-resource',
      'service.instance.id': 'scraper-7d9f-abcde',
      'k8s.pod.name': 'scraper-7d9f-abcde',
      'k8s.namespace.name': 'wds-prod',
      'telemetry.sdk.language': 'nodejs',
    });
  });
});
