/** What a valid API key resolves to; attached to the request by the API key guard. */
export interface TeamLimits {
  requestsPerMinute: number;
  maxConcurrency: number;
  maxBrowserSessions: number;
}

/** Limits of a team created without explicit ones (mirrored by the column defaults). */
export const DEFAULT_TEAM_LIMITS: TeamLimits = {
  requestsPerMinute: 600,
  maxConcurrency: 50,
  maxBrowserSessions: 5,
};

export interface AuthenticatedTeam {
  teamId: string;
  keyPrefix: string;
  enterprise: boolean;
  zeroDataRetentionEnabled: boolean;
  limits: TeamLimits;
}
