import { BadRequestException, NotFoundException } from '@nestjs/common';
import { ErrorCode, ServiceError } from '@wds/contracts';
import { z } from 'zod';
import { toErrorAnswer } from './error-envelope';

describe('toErrorAnswer', () => {
  it('keeps service errors, their code and Retry-After', () => {
    const a = toErrorAnswer(new ServiceError(ErrorCode.RATE_LIMITED, 'slow down', undefined, 7));
    expect(a).toMatchObject({ status: 429, retryAfterSeconds: 7, internal: false });
    expect(a.body).toEqual({ success: false, error: 'slow down', code: 'RATE_LIMITED' });
  });

  it('names the offending field of a zod error', () => {
    const r = z.strictObject({ url: z.string() }).safeParse({ url: 'x', bogus: 1 });
    const a = toErrorAnswer(r.error);
    expect(a.status).toBe(400);
    expect(a.body.code).toBe('BAD_REQUEST');
    expect(a.body.error).toContain('bogus');
  });

  it('wraps Nest and Fastify client errors', () => {
    expect(toErrorAnswer(new NotFoundException('Cannot GET /x')).body).toEqual({
      success: false,
      error: 'Cannot GET /x',
      code: 'NOT_FOUND',
    });
    expect(toErrorAnswer(new BadRequestException()).status).toBe(400);
    const parse = Object.assign(
      new Error("Body is not valid JSON but content-type is set to 'application/json'"),
      {
        statusCode: 400,
        code: 'FST_ERR_CTP_INVALID_JSON_BODY',
      },
    );
    expect(toErrorAnswer(parse)).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    const media = Object.assign(new Error('Unsupported Media Type'), { statusCode: 415 });
    expect(toErrorAnswer(media).status).toBe(415);
  });

  it('never leaks internals of unexpected errors', () => {
    const a = toErrorAnswer(new Error('connect ECONNREFUSED 10.0.0.5:5432'));
    expect(a).toMatchObject({ status: 500, internal: true });
    expect(JSON.stringify(a.body)).not.toContain('10.0.0.5');
    const b = toErrorAnswer(new ServiceError(ErrorCode.INTERNAL, 'pg at 10.0.0.5 failed'));
    expect(JSON.stringify(b.body)).not.toContain('10.0.0.5');
  });
});
