import { BaseRpcContext } from '@nestjs/microservices';
import type { ConsumeContext } from '../consumer';

/** `@Ctx()` of an RPC handler: the subject and the request's NATS headers (trace context included). */
export class WdsRpcContext extends BaseRpcContext<[string, Record<string, string>]> {
  getSubject(): string {
    return this.args[0];
  }

  getHeaders(): Record<string, string> {
    return this.args[1];
  }
}

/** `@Ctx()` of a JetStream consumer handler: the delivery (subject, count, msg id, stream sequence). */
export class JetStreamContext extends BaseRpcContext<[ConsumeContext]> {
  getDelivery(): ConsumeContext {
    return this.args[0];
  }

  getSubject(): string {
    return this.args[0].subject;
  }

  getHeaders(): Record<string, string> {
    return this.args[0].headers;
  }

  getDeliveryCount(): number {
    return this.args[0].deliveryCount;
  }

  /** The message's sequence in its stream (what `Messaging.deleteMessage` takes). */
  getStreamSeq(): number {
    return this.args[0].streamSeq;
  }
}
