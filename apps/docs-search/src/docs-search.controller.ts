import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { DOCS_SEARCH_RPC, type RpcRequestParsed } from '@wds/contracts';
import { rpc, type RpcAnswer } from '@wds/messaging';
import { AskDocs } from './answer/ask-docs.usecase';

/**
 * The ask RPC, a `@MessagePattern` handler of the WDS transport (ADR 0001). The transport binds it
 * after the bootstrap hooks, so only once `DocsSearchService` has brought the text index in line.
 */
@Controller()
export class DocsSearchController {
  constructor(private readonly askDocs: AskDocs) {}

  @MessagePattern(...rpc(DOCS_SEARCH_RPC.ask))
  ask(@Payload() req: RpcRequestParsed<typeof DOCS_SEARCH_RPC.ask>): RpcAnswer<typeof DOCS_SEARCH_RPC.ask> {
    return this.askDocs.execute(req);
  }
}
