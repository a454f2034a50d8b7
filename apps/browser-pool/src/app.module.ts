import { Module } from '@nestjs/common';
import { AgentModule } from './agent/agent.module';
import { RenderModule } from './render/render.module';
import { SessionsModule } from './sessions/sessions.module';

/** Root feature module of the browser-pool service; platform providers (config, logger, NATS, PostgreSQL) are global. */
@Module({
  imports: [RenderModule, SessionsModule, AgentModule],
})
export class AppModule {}
