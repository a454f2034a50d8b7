import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { ScrapeModule } from '../scrape/scrape.module';
import { BrowserController } from './browser.controller';
import { BrowserSessions } from './browser-sessions.service';
import { CdpProxySocket } from './cdp-proxy.socket';
import { InteractController } from './interact.controller';

/** Browser sessions and interact, served by the browser-pool over NATS; the cdpUrl WebSocket proxy. */
@Module({
  imports: [ScrapeModule, CreditsModule],
  controllers: [BrowserController, InteractController],
  providers: [BrowserSessions, CdpProxySocket],
})
export class BrowserModule {}
