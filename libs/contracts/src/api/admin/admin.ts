import { z } from 'zod';

export const TeamLimits = z.strictObject({
  requestsPerMinute: z.int().min(1).max(1_000_000_000).optional(),
  maxConcurrency: z.int().min(1).max(1_000_000).optional(),
  maxBrowserSessions: z.int().min(0).max(1_000_000).optional(),
});
export type TeamLimits = z.output<typeof TeamLimits>;

const Enterprise = z
  .boolean()
  .describe('Enterprise features of api-v2.md: ignoreRobotsTxt and robotsUserAgent on crawls');
const ZeroDataRetention = z
  .boolean()
  .describe('Lets the team ask for zeroDataRetention on scrapes, crawls and batch scrapes');

/** POST /admin/v1/teams. */
export const AdminCreateTeamRequest = z.strictObject({
  name: z.string().trim().min(1).max(200),
  credits: z.int().min(0).max(1e15).optional(),
  limits: TeamLimits.optional(),
  enterprise: Enterprise.default(false),
  zeroDataRetention: ZeroDataRetention.default(false),
});
export type AdminCreateTeamRequest = z.output<typeof AdminCreateTeamRequest>;

export const AdminCreateTeamResponse = z.object({
  teamId: z.string(),
  apiKey: z.string().describe('Shown once'),
});
export type AdminCreateTeamResponse = z.output<typeof AdminCreateTeamResponse>;

export const AdminTeamParams = z.object({ teamId: z.string().min(1).max(200) });
export type AdminTeamParams = z.output<typeof AdminTeamParams>;

/** POST /admin/v1/teams/{teamId}/api-keys. */
export const AdminCreateApiKeyRequest = z.strictObject({
  name: z.string().trim().min(1).max(200).optional(),
});
export type AdminCreateApiKeyRequest = z.output<typeof AdminCreateApiKeyRequest>;

export const AdminCreateApiKeyResponse = z.object({ apiKey: z.string().describe('Shown once') });
export type AdminCreateApiKeyResponse = z.output<typeof AdminCreateApiKeyResponse>;

export const AdminApiKeyParams = z.object({ prefix: z.string().min(1).max(200) });
export type AdminApiKeyParams = z.output<typeof AdminApiKeyParams>;

/** POST /admin/v1/teams/{teamId}/credits: a grant (positive) or a correction (negative). */
export const AdminCreditsRequest = z.strictObject({
  amount: z
    .int()
    .min(-1e15)
    .max(1e15)
    .refine((n) => n !== 0, 'amount must not be 0'),
  reason: z.string().trim().min(1).max(500),
});
export type AdminCreditsRequest = z.output<typeof AdminCreditsRequest>;

export const AdminCreditsResponse = z.object({ balance: z.number() });
export type AdminCreditsResponse = z.output<typeof AdminCreditsResponse>;

/** PUT /admin/v1/teams/{teamId}/limits. */
export const AdminLimitsRequest = TeamLimits;
export type AdminLimitsRequest = TeamLimits;

/** PUT /admin/v1/teams/{teamId}/features: sets the given flags, keeps the others. */
export const AdminFeaturesRequest = z
  .strictObject({ enterprise: Enterprise.optional(), zeroDataRetention: ZeroDataRetention.optional() })
  .refine((f) => f.enterprise !== undefined || f.zeroDataRetention !== undefined, {
    message: 'At least one of enterprise or zeroDataRetention must be given',
  });
export type AdminFeaturesRequest = z.output<typeof AdminFeaturesRequest>;

/** The team's flags after the change. */
export const AdminFeaturesResponse = z.object({
  success: z.literal(true),
  enterprise: z.boolean(),
  zeroDataRetention: z.boolean(),
});
export type AdminFeaturesResponse = z.output<typeof AdminFeaturesResponse>;

/** DELETE /admin/v1/teams/{teamId}/change-tracking: one URL's snapshots, or all of the team's. */
export const AdminChangeTrackingDeleteQuery = z.strictObject({
  url: z.url().optional().describe("Only this URL's snapshots (every tag); absent: all of the team's"),
});
export const AdminChangeTrackingDeleteResponse = z.object({
  success: z.literal(true),
  deleted: z.int().min(0).describe('Snapshots deleted'),
});
export type AdminChangeTrackingDeleteResponse = z.output<typeof AdminChangeTrackingDeleteResponse>;

/**
 * POST /admin/v1/teams/{teamId}/webhook-deliveries/resend: the team's given-up deliveries (all its
 * jobs, or one) that gave up within a window are sent again, each with the whole schedule anew.
 */
export const AdminWebhookRequeueRequest = z
  .strictObject({
    jobId: z.uuid().optional().describe("Only this job's deliveries"),
    failedSince: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('Only deliveries that gave up at or after this time'),
    failedUntil: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('Only deliveries that gave up before this time'),
  })
  .refine((b) => !b.failedSince || !b.failedUntil || Date.parse(b.failedSince) < Date.parse(b.failedUntil), {
    path: ['failedUntil'],
    message: 'failedUntil must be after failedSince',
  });
export type AdminWebhookRequeueRequest = z.output<typeof AdminWebhookRequeueRequest>;

/** PUT /admin/v1/teams/{teamId}/webhook-secret. */
export const AdminWebhookSecretRequest = z.strictObject({ secret: z.string().min(1).max(1000) });
export type AdminWebhookSecretRequest = z.output<typeof AdminWebhookSecretRequest>;

/** Answer of the admin calls that return nothing else. */
export const AdminOkResponse = z.object({ success: z.literal(true) });
export type AdminOkResponse = z.output<typeof AdminOkResponse>;
