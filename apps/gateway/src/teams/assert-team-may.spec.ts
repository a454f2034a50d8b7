import { ErrorCode } from '@wds/contracts';
import { assertTeamMay } from './assert-team-may';

const plain = { enterprise: false, zeroDataRetentionEnabled: false };

describe('assertTeamMay', () => {
  it('lets any team make a request without gated options', () => {
    expect(() => assertTeamMay(plain, {})).not.toThrow();
    expect(() => assertTeamMay(plain, { zeroDataRetention: false, ignoreRobotsTxt: false })).not.toThrow();
  });

  it('refuses zero data retention to a team without it, with 403', () => {
    expect(() => assertTeamMay(plain, { zeroDataRetention: true })).toThrow(
      expect.objectContaining({
        code: ErrorCode.FORBIDDEN,
        message: expect.stringContaining('Zero data retention'),
      }),
    );
    expect(() =>
      assertTeamMay({ ...plain, zeroDataRetentionEnabled: true }, { zeroDataRetention: true }),
    ).not.toThrow();
  });

  it('refuses the robots.txt overrides to a team without enterprise, even an empty user agent', () => {
    for (const request of [{ ignoreRobotsTxt: true }, { robotsUserAgent: '' }, { robotsUserAgent: 'bot' }]) {
      expect(() => assertTeamMay(plain, request)).toThrow(
        expect.objectContaining({
          code: ErrorCode.FORBIDDEN,
          message: expect.stringContaining('enterprise'),
        }),
      );
      expect(() => assertTeamMay({ ...plain, enterprise: true }, request)).not.toThrow();
    }
  });
});
