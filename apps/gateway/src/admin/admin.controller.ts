import {
  Body,
  Controller,
  Delete,
  Headers,
  HttpCode,
  Param,
  Post,
  Put,
  Query,
  UseGuards,
} from '@nestjs/common';
import {
  AdminChangeTrackingDeleteQuery,
  changeTrackingDeleteRpc,
  type AdminChangeTrackingDeleteResponse,
  AdminCreateApiKeyRequest,
  AdminCreateTeamRequest,
  AdminCreditsRequest,
  AdminFeaturesRequest,
  AdminLimitsRequest,
  AdminWebhookRequeueRequest,
  AdminWebhookSecretRequest,
  type WebhookRequeueResponse,
  type AdminCreateApiKeyResponse,
  type AdminCreateTeamResponse,
  type AdminCreditsResponse,
  type AdminFeaturesResponse,
  type AdminOkResponse,
} from '@wds/contracts';
import { Messaging } from '@wds/messaging';
import { validate } from '../http/validate';
import { AdminTokenGuard } from './admin-token.guard';
import { AdjustCredits } from './adjust-credits.usecase';
import { CreateApiKey } from './create-api-key.usecase';
import { CreateTeam } from './create-team.usecase';
import { RequeueWebhooks } from './requeue-webhooks.usecase';
import { RevokeApiKey } from './revoke-api-key.usecase';
import { SetTeamFeatures } from './set-team-features.usecase';
import { SetTeamLimits } from './set-team-limits.usecase';
import { SetWebhookSecret } from './set-webhook-secret.usecase';

const OK: AdminOkResponse = { success: true };

/** The operator API of operations.md; every route needs the admin token. */
@Controller('admin/v1')
@UseGuards(AdminTokenGuard)
export class AdminController {
  constructor(
    private readonly createTeam: CreateTeam,
    private readonly createApiKey: CreateApiKey,
    private readonly revokeApiKey: RevokeApiKey,
    private readonly adjustCredits: AdjustCredits,
    private readonly setLimits: SetTeamLimits,
    private readonly setFeatures: SetTeamFeatures,
    private readonly setWebhookSecret: SetWebhookSecret,
    private readonly requeueWebhooks: RequeueWebhooks,
    private readonly messaging: Messaging,
  ) {}

  /** Change-tracking snapshots are kept until deleted: here (the scraper owns them). */
  @Delete('teams/:teamId/change-tracking')
  @HttpCode(200)
  async deleteChangeTracking(
    @Param('teamId') teamId: string,
    @Query() query: unknown,
  ): Promise<AdminChangeTrackingDeleteResponse> {
    const { url } = validate(AdminChangeTrackingDeleteQuery, query ?? {}, 'query');
    const { deleted } = await this.messaging.request(changeTrackingDeleteRpc, { teamId, url });
    return { success: true, deleted };
  }

  @Post('teams')
  @HttpCode(201)
  async teams(@Body() body: unknown): Promise<AdminCreateTeamResponse> {
    return this.createTeam.execute(validate(AdminCreateTeamRequest, body, 'body'));
  }

  @Post('teams/:teamId/api-keys')
  @HttpCode(201)
  async apiKeys(@Param('teamId') teamId: string, @Body() body: unknown): Promise<AdminCreateApiKeyResponse> {
    const { name } = validate(AdminCreateApiKeyRequest, body ?? {}, 'body');
    return this.createApiKey.execute(teamId, name);
  }

  @Delete('api-keys/:prefix')
  @HttpCode(200)
  async revoke(@Param('prefix') prefix: string): Promise<AdminOkResponse> {
    await this.revokeApiKey.execute(prefix);
    return OK;
  }

  @Post('teams/:teamId/credits')
  @HttpCode(200)
  async credits(
    @Param('teamId') teamId: string,
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<AdminCreditsResponse> {
    return this.adjustCredits.execute(teamId, validate(AdminCreditsRequest, body, 'body'), idempotencyKey);
  }

  @Put('teams/:teamId/limits')
  @HttpCode(200)
  async limits(@Param('teamId') teamId: string, @Body() body: unknown): Promise<AdminOkResponse> {
    await this.setLimits.execute(teamId, validate(AdminLimitsRequest, body, 'body'));
    return OK;
  }

  @Put('teams/:teamId/features')
  @HttpCode(200)
  async features(@Param('teamId') teamId: string, @Body() body: unknown): Promise<AdminFeaturesResponse> {
    const flags = await this.setFeatures.execute(teamId, validate(AdminFeaturesRequest, body, 'body'));
    return { success: true, ...flags };
  }

  @Put('teams/:teamId/webhook-secret')
  @HttpCode(200)
  async webhookSecret(@Param('teamId') teamId: string, @Body() body: unknown): Promise<AdminOkResponse> {
    await this.setWebhookSecret.execute(teamId, validate(AdminWebhookSecretRequest, body, 'body').secret);
    return OK;
  }

  /** A receiver that was down past the retry schedule is back: send what gave up again. */
  @Post('teams/:teamId/webhook-deliveries/resend')
  @HttpCode(200)
  async resendWebhooks(
    @Param('teamId') teamId: string,
    @Body() body: unknown,
  ): Promise<WebhookRequeueResponse> {
    return this.requeueWebhooks.execute(teamId, validate(AdminWebhookRequeueRequest, body ?? {}, 'body'));
  }
}
