import { Controller, Inject, Injectable, Module, type OnApplicationBootstrap } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ErrorCode, ServiceError, defineRpc } from '@wds/contracts';
import { Messaging, WdsClientProxy, rpc } from '@wds/messaging';
import { createLogger } from '@wds/observability';
import { createTestDatabase, testNatsUrl } from '@wds/testing';
import { randomUUID } from 'node:crypto';
import { firstValueFrom } from 'rxjs';
import { z } from 'zod';
import { bootstrapService, type RunningService } from '../src';

const suffix = randomUUID().slice(0, 8);
const Greet = defineRpc(
  `test.${suffix}.greet`,
  `test-greet-${suffix}`,
  z.object({ name: z.string() }),
  z.object({ greeting: z.string() }),
);
const Relay = defineRpc(
  `test.${suffix}.relay`,
  `test-relay-${suffix}`,
  z.object({ name: z.string() }),
  z.object({ relayed: z.string() }),
);

/** Ready only after its bootstrap hook: a handler answering before that would answer "not ready". */
@Injectable()
class Greeter implements OnApplicationBootstrap {
  prefix = 'not ready';
  async onApplicationBootstrap(): Promise<void> {
    await new Promise((r) => setTimeout(r, 50));
    this.prefix = 'hello';
  }
}

@Controller()
class GreetController {
  constructor(
    private readonly greeter: Greeter,
    @Inject(WdsClientProxy) private readonly client: WdsClientProxy,
  ) {}

  @MessagePattern(...rpc(Greet))
  greet(@Payload() req: { name: string }) {
    if (req.name === 'nobody') throw new ServiceError(ErrorCode.NOT_FOUND, 'nobody to greet');
    return { greeting: `${this.greeter.prefix} ${req.name}` };
  }

  /** Calls another RPC through the injected ClientProxy. */
  @MessagePattern(...rpc(Relay))
  async relay(@Payload() req: { name: string }) {
    const { greeting } = await firstValueFrom(this.client.send(Greet, { name: req.name }));
    return { relayed: greeting };
  }
}

@Module({ controllers: [GreetController], providers: [Greeter] })
class GreetModule {}

describe('bootstrapService serves controllers over the WDS transport (real NATS)', () => {
  let db: { url: string; drop: () => Promise<void> };
  let service: RunningService;
  let caller: Messaging;

  beforeAll(async () => {
    db = await createTestDatabase('sktransport');
    service = await bootstrapService({
      kind: 'billing',
      module: GreetModule,
      env: {
        NATS_URL: testNatsUrl(),
        DATABASE_URL: db.url,
        HEALTH_HOST: '127.0.0.1',
        HEALTH_PORT: '0',
        LOG_LEVEL: 'warn',
      },
    });
    caller = await Messaging.connect({
      servers: testNatsUrl(),
      name: 'transport-caller',
      logger: createLogger({ service: 'test', level: 'silent' }),
    });
  });

  afterAll(async () => {
    await service?.stop();
    await caller?.drain();
    await db?.drop();
  });

  it('answers as soon as the service has started, after its bootstrap hooks', async () => {
    await expect(caller.request(Greet, { name: 'ada' })).resolves.toEqual({ greeting: 'hello ada' });
  });

  it('carries ServiceErrors of a controller to the caller', async () => {
    const err = (await caller.request(Greet, { name: 'nobody' }).catch((e: unknown) => e)) as ServiceError;
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe(ErrorCode.NOT_FOUND);
  });

  it('injects a WdsClientProxy on the service connection', async () => {
    await expect(caller.request(Relay, { name: 'bob' })).resolves.toEqual({ relayed: 'hello bob' });
  });
});
