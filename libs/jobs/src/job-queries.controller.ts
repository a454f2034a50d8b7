import { Controller, Inject, type Type } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import type { JobRpcSet, RpcRequestParsed } from '@wds/contracts';
import { rpc } from '@wds/messaging';
import type { JobQueries } from './job-queries';

/**
 * A controller serving a page-job service's read and cancel RPCs (`rpcs`) as `@MessagePattern`
 * handlers of the WDS transport (ADR 0001), answered by the `JobQueries` the service provides under
 * `queriesToken`. A class per service (Nest's mixin idiom): the subjects differ by job kind.
 */
export function jobQueriesController(rpcs: JobRpcSet, queriesToken: string | symbol): Type<unknown> {
  type Req<K extends keyof JobRpcSet> = RpcRequestParsed<JobRpcSet[K]>;

  @Controller()
  class JobQueriesController {
    constructor(@Inject(queriesToken) private readonly queries: JobQueries) {}

    @MessagePattern(...rpc(rpcs.status))
    status(@Payload() req: Req<'status'>) {
      return this.queries.status(req);
    }

    @MessagePattern(...rpc(rpcs.documentChunk))
    documentChunk(@Payload() req: Req<'documentChunk'>) {
      return this.queries.documentChunk(req);
    }

    @MessagePattern(...rpc(rpcs.cancel))
    cancel(@Payload() req: Req<'cancel'>) {
      return this.queries.cancel(req);
    }

    @MessagePattern(...rpc(rpcs.errors))
    errors(@Payload() req: Req<'errors'>) {
      return this.queries.errors(req.teamId, req.jobId);
    }

    @MessagePattern(...rpc(rpcs.queue))
    queue(@Payload() req: Req<'queue'>) {
      return this.queries.queue(req);
    }

    @MessagePattern(...rpc(rpcs.active))
    active(@Payload() req: Req<'active'>) {
      return this.queries.active(req);
    }
  }
  return JobQueriesController;
}
