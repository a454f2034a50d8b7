import { ErrorCode, ServiceError } from '@wds/contracts';
import type { AuthenticatedTeam } from './team';

/** The options of a request that only some teams may use. */
export interface TeamGatedOptions {
  zeroDataRetention?: boolean;
  ignoreRobotsTxt?: boolean;
  robotsUserAgent?: string;
}

/**
 * Refuses (403) a request that uses a feature its team does not have: zero data retention needs the
 * team's ZDR switch, the robots.txt overrides need enterprise (api-v2.md: "requires enablement").
 * Every route that takes such options asks here, so the rule and its wording live once.
 */
export function assertTeamMay(
  team: Pick<AuthenticatedTeam, 'enterprise' | 'zeroDataRetentionEnabled'>,
  request: TeamGatedOptions,
): void {
  if ((request.ignoreRobotsTxt || request.robotsUserAgent !== undefined) && !team.enterprise) {
    throw new ServiceError(
      ErrorCode.FORBIDDEN,
      'ignoreRobotsTxt and robotsUserAgent are enterprise features; contact support to enable them',
    );
  }
  if (request.zeroDataRetention && !team.zeroDataRetentionEnabled) {
    throw new ServiceError(
      ErrorCode.FORBIDDEN,
      'Zero data retention is not enabled for this team; contact support to enable it',
    );
  }
}
