import { z } from 'zod';

/*
 * Recordings of browser sessions (`recordSession: true`; docs/adr/0008-browser-sessions.md,
 * amendment "recordings"). The replica holding the session encodes the screen it shows as HLS
 * (H.264 in MPEG-TS segments) and stores the playlist and each finished segment in the artifacts
 * bucket as it goes, so a recording survives its replica and can be watched while the session runs.
 * Its own random token (not derived from the session's, which is erased when the session ends) is
 * the credential of its public URLs; it is stored with the session and on the playlist object.
 */

/** Name of the HLS playlist of a recording. */
export const RECORDING_PLAYLIST = 'index.m3u8';
/** Name of the whole recording as one MP4 file (made when the session ends). */
export const RECORDING_MP4 = 'recording.mp4';

/** The object-store name of a recording's file (in ARTIFACTS_BUCKET). */
export function recordingObject(sessionId: string, file: string): string {
  return `recordings/${sessionId}/${file}`;
}

/** Metadata of every object of a recording. */
export const RecordingMeta = z.object({
  teamId: z.string().min(1),
  kind: z.literal('recording'),
  sessionId: z.uuid(),
  /** The recording's token (the credential of its public URLs). */
  token: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
});
export type RecordingMeta = z.output<typeof RecordingMeta>;

/** Content types of a recording's files. */
export function recordingContentType(file: string): string {
  if (file.endsWith('.m3u8')) return 'application/vnd.apple.mpegurl';
  return file.endsWith('.mp4') ? 'video/mp4' : 'video/mp2t';
}

/** A playlist line that names a media file (not blank, not a `#` tag or comment), trimmed; else undefined. */
function mediaLine(line: string): string | undefined {
  const file = line.trim();
  return file && !file.startsWith('#') ? file : undefined;
}

/** The media files an HLS playlist lists, in its order. */
export function playlistFiles(playlist: string): string[] {
  return playlist.split('\n').flatMap((line) => mediaLine(line) ?? []);
}

/** The playlist with each media file named by `base` + its name (absolute URLs); tags kept as they are. */
export function playlistWithBase(playlist: string, base: string): string {
  return playlist
    .split('\n')
    .map((line) => {
      const file = mediaLine(line);
      return file === undefined ? line : base + file;
    })
    .join('\n');
}
