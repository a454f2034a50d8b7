import { SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { LlmUsage } from './types';

const tracer = trace.getTracer('@wds/llm');

/**
 * One CLIENT span per provider call, named and attributed per the OpenTelemetry GenAI semantic
 * conventions (`chat {model}`, gen_ai.*). Prompts and answers are never recorded (page content
 * may be confidential and ZDR requests must not leak into traces).
 */
export function startChatSpan(attrs: {
  model: string;
  feature: string;
  serverUrl: string;
  maxTokens: number;
  temperature: number;
  structured: boolean;
  attempt: number;
}): Span {
  const url = new URL(attrs.serverUrl);
  return tracer.startSpan(`chat ${attrs.model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': attrs.model,
      'gen_ai.request.max_tokens': attrs.maxTokens,
      'gen_ai.request.temperature': attrs.temperature,
      'gen_ai.output.type': attrs.structured ? 'json' : 'text',
      'server.address': url.hostname,
      'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
      'wds.llm.feature': attrs.feature,
      'wds.llm.attempt': attrs.attempt,
    },
  });
}

export function endChatSpan(
  span: Span,
  outcome: {
    usage?: LlmUsage;
    responseModel?: string;
    responseId?: string;
    finishReason?: string;
    error?: { type: string; message: string };
  },
): void {
  if (outcome.usage) {
    span.setAttribute('gen_ai.usage.input_tokens', outcome.usage.promptTokens);
    span.setAttribute('gen_ai.usage.output_tokens', outcome.usage.completionTokens);
  }
  if (outcome.responseModel) span.setAttribute('gen_ai.response.model', outcome.responseModel);
  if (outcome.responseId) span.setAttribute('gen_ai.response.id', outcome.responseId);
  if (outcome.finishReason) span.setAttribute('gen_ai.response.finish_reasons', [outcome.finishReason]);
  if (outcome.error) {
    span.setAttribute('error.type', outcome.error.type);
    span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error.message });
  }
  span.end();
}
