import { Module } from '@nestjs/common';
import { buildNotImplementedController } from './not-implemented.controller';

/** Routes of not-yet-implemented /v2 endpoints (see not-implemented.routes.ts). */
@Module({ controllers: [buildNotImplementedController()] })
export class PendingRoutesModule {}
