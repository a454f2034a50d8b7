import { Controller, Delete, Get, Inject, Param, Req, Res } from '@nestjs/common';
import {
  ErrorCode,
  playlistFiles,
  playlistWithBase,
  RECORDING_FILE_PATTERN,
  RECORDING_MP4,
  RECORDING_PLAYLIST,
  RecordingMeta,
  RecordingParams,
  recordingContentType,
  recordingObject,
  sameToken,
  ServiceError,
  SessionIdParams,
  type DeleteReplayResponse,
} from '@wds/contracts';
import { APP_CONFIG } from '@wds/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ArtifactReader } from '../artifacts/artifact-reader';
import { PublicRoute } from '../auth/public-route';
import type { GatewayConfig } from '../config';
import { CurrentTeam } from '../http/request-context';
import { validate } from '../http/validate';
import { publicBaseUrl } from '../jobs/public-url';
import type { AuthenticatedTeam } from '../teams/team';
import { BrowserSessions } from './browser-sessions.service';

const NOT_FOUND = 'Unknown or expired recording, or wrong recording token';

/** Headers of every recording file: no Referer (its URL holds the token), any origin may play it. */
function recordingHeaders(reply: FastifyReply, file: string): void {
  void reply.headers({
    'content-type': recordingContentType(file),
    // The playlist grows while the session runs; a segment never changes.
    'cache-control': file === RECORDING_PLAYLIST ? 'no-cache' : 'private, max-age=86400, immutable',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'access-control-allow-origin': '*',
  });
}

/**
 * Recordings of browser sessions (`recordSession: true`), stored by the browser-pool as HLS in the
 * artifacts bucket while the session runs: the playlist URL a create answers (`playlistUrl`, its
 * token the credential, like a live view's, so that any HLS player can fetch its segments), and
 * `GET /v2/browser/{id}/replay` for the team's API key, which answers the same playlist with
 * absolute segment URLs.
 */
@Controller(['v2/browser', 'v2/interact'])
export class RecordingController {
  constructor(
    private readonly sessions: BrowserSessions,
    private readonly artifacts: ArtifactReader,
    @Inject(APP_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Get(':sessionId/replay')
  async replay(
    @Req() req: FastifyRequest,
    @CurrentTeam() team: AuthenticatedTeam,
    @Param() params: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const { sessionId } = validate(SessionIdParams, params, 'path');
    const session = await this.sessions.lookup(team.teamId, { sessionId });
    if (!session.recordingToken)
      throw new ServiceError(ErrorCode.NOT_FOUND, 'This session was not recorded (recordSession)');
    const playlist = await this.artifacts.readNamed(recordingObject(session.id, RECORDING_PLAYLIST));
    if (!playlist) {
      throw new ServiceError(
        ErrorCode.NOT_FOUND,
        session.status === 'active'
          ? 'The recording has no finished segment yet: try again in a few seconds'
          : 'The recording has expired, or the session ended before anything was shown',
      );
    }
    const base = `${publicBaseUrl(this.config.WDS_PUBLIC_BASE_URL, req)}/v2/browser/${session.id}/recording/${session.recordingToken}/`;
    recordingHeaders(reply, RECORDING_PLAYLIST);
    return playlistWithBase(Buffer.from(playlist.data).toString('utf8'), base);
  }

  /**
   * DELETE /v2/browser/{id}/replay: the team deletes the recording of an ended session before its
   * retention ends (the files its playlist lists, then the playlist, so a stored file that no
   * playlist names is never served). While the session runs its recording is still written: 409.
   */
  @Delete(':sessionId/replay')
  async remove(
    @CurrentTeam() team: AuthenticatedTeam,
    @Param() params: unknown,
  ): Promise<DeleteReplayResponse> {
    const { sessionId } = validate(SessionIdParams, params, 'path');
    const session = await this.sessions.lookup(team.teamId, { sessionId });
    if (!session.recordingToken)
      throw new ServiceError(ErrorCode.NOT_FOUND, 'This session was not recorded (recordSession)');
    if (session.status === 'active') {
      throw new ServiceError(
        ErrorCode.CONFLICT,
        'The session is still recording: end it first (DELETE /v2/browser/{id}), then delete its recording',
      );
    }
    const name = recordingObject(session.id, RECORDING_PLAYLIST);
    const playlist = await this.artifacts.readNamed(name);
    if (!playlist) throw new ServiceError(ErrorCode.NOT_FOUND, 'The recording was deleted or has expired');
    let deleted = 0;
    for (const file of playlistFiles(Buffer.from(playlist.data).toString('utf8'))) {
      if (!RECORDING_FILE_PATTERN.test(file) || file === RECORDING_PLAYLIST) continue;
      if (await this.artifacts.deleteNamed(recordingObject(session.id, file))) deleted++;
    }
    if (await this.artifacts.deleteNamed(recordingObject(session.id, RECORDING_MP4))) deleted++;
    if (await this.artifacts.deleteNamed(name)) deleted++;
    return { success: true, deleted };
  }

  @Get(':sessionId/recording/:token/:file')
  @PublicRoute()
  async file(@Param() params: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<Buffer> {
    const { sessionId, token, file } = validate(RecordingParams, params, 'path');
    // The playlist's metadata holds the token: every file is checked against it.
    const meta = RecordingMeta.safeParse(
      await this.artifacts.metadataOf(recordingObject(sessionId, RECORDING_PLAYLIST)),
    );
    if (!meta.success || meta.data.sessionId !== sessionId || !sameToken(meta.data.token, token))
      throw new ServiceError(ErrorCode.NOT_FOUND, NOT_FOUND);
    const stored = await this.artifacts.readNamed(recordingObject(sessionId, file));
    if (!stored || stored.metadata.sessionId !== sessionId)
      throw new ServiceError(ErrorCode.NOT_FOUND, NOT_FOUND);
    recordingHeaders(reply, file);
    return Buffer.from(stored.data);
  }
}
