import { Module } from '@nestjs/common';
import { CreditsModule } from '../credits/credits.module';
import { ScrapeModule } from '../scrape/scrape.module';
import { BrowserController } from './browser.controller';
import { BrowserSessions } from './browser-sessions.service';
import { CdpProxySocket } from './cdp-proxy.socket';
import { InteractController } from './interact.controller';
import { LiveViewController } from './live-view.controller';
import { LiveViewSocket } from './live-view.socket';

/** Browser sessions and interact, served by the browser-pool over NATS; the cdpUrl WebSocket proxy and the live views. */
@Module({
  imports: [ScrapeModule, CreditsModule],
  controllers: [BrowserController, InteractController, LiveViewController],
  providers: [BrowserSessions, CdpProxySocket, LiveViewSocket],
})
export class BrowserModule {}
