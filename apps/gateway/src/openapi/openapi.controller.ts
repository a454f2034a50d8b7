import { Controller, Get, Inject } from '@nestjs/common';
import { buildOpenApiDocument, type OpenApiDocument } from '@wds/contracts';
import { APP_CONFIG } from '@wds/service-kit';
import { PublicRoute } from '../auth/public-route';
import type { GatewayConfig } from '../config';

/** The machine-readable API description, generated from the same zod schemas that validate requests. */
@Controller('v2')
export class OpenApiController {
  constructor(@Inject(APP_CONFIG) private readonly config: GatewayConfig) {}

  @Get('openapi.json')
  @PublicRoute()
  document(): OpenApiDocument {
    return buildOpenApiDocument({ serverUrl: this.config.WDS_PUBLIC_BASE_URL });
  }
}
