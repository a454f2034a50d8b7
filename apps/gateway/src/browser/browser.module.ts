import { Module } from '@nestjs/common';
import { ArtifactsModule } from '../artifacts/artifacts.module';
import { CreditsModule } from '../credits/credits.module';
import { ScrapeModule } from '../scrape/scrape.module';
import { BrowserController } from './browser.controller';
import { BrowserSessions } from './browser-sessions.service';
import { CdpProxySocket } from './cdp-proxy.socket';
import { InteractController } from './interact.controller';
import { LiveViewController } from './live-view.controller';
import { LiveViewSocket } from './live-view.socket';
import { RecordingController } from './recording.controller';

/** Browser sessions and interact, served by the browser-pool over NATS; the cdpUrl WebSocket proxy, the live views and the recordings. */
@Module({
  imports: [ScrapeModule, CreditsModule, ArtifactsModule],
  controllers: [BrowserController, InteractController, LiveViewController, RecordingController],
  providers: [BrowserSessions, CdpProxySocket, LiveViewSocket],
})
export class BrowserModule {}
