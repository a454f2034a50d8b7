import {
  artifactUrl,
  CREDIT_PRICES,
  ServiceError,
  type ArtifactSigning,
  type Document,
} from '@wds/contracts';
import { decodeBody, type OutboundHttp } from '@wds/outbound';
import type { FetchedPage } from '../../engine/fetch-engine';
import { discoverMedia } from './discover-media';
import { MediaReadError, type Ffmpeg } from './ffmpeg';
import type { MediaArtifacts } from './media-artifacts';

export interface MediaSettings {
  /** Largest media file downloaded (bytes). */
  maxBytes: number;
  /** Upper bound of one ffmpeg/ffprobe run (ms), within the scrape's deadline. */
  processMs: number;
  publicBaseUrl: string;
  artifactSigning?: ArtifactSigning;
}

export interface MediaCommand {
  teamId: string;
  kinds: ('audio' | 'video')[];
  page: FetchedPage;
  /** Epoch ms by which the scrape must answer. */
  deadline: number;
  skipTlsVerification: boolean;
}

export interface MediaOutcome {
  fields: Pick<Document, 'audio' | 'video'>;
  warnings: string[];
  credits: number;
}

/** Credits per media format produced (api-v2 leaves them to the reference: +4 each). */
export const MEDIA_CREDITS = CREDIT_PRICES.mediaFormat;

/** Time kept back from the deadline for storing the document and answering. */
const ANSWER_MARGIN_MS = 1500;

/**
 * The `audio` and `video` formats: the page's primary media (see {@link discoverMedia}) downloaded
 * through the network policy, checked with ffprobe, stored as artifacts; `audio` is the first audio
 * track as MP3 (from an `<audio>` file, else from the video). A page without media gets a warning.
 */
export class MediaFormats {
  constructor(
    private readonly http: OutboundHttp,
    private readonly ffmpeg: Ffmpeg,
    private readonly artifacts: MediaArtifacts,
    private readonly settings: MediaSettings,
    private readonly now: () => number = Date.now,
  ) {}

  async execute(cmd: MediaCommand): Promise<MediaOutcome> {
    const out: MediaOutcome = { fields: {}, warnings: [], credits: 0 };
    const html = decodeBody(cmd.page.body, cmd.page.contentType).text;
    const found = discoverMedia(html, cmd.page.url);
    const downloads = new Map<string, Promise<MediaFile>>();
    const download = (url: string) => {
      let d = downloads.get(url);
      if (!d) downloads.set(url, (d = this.download(url, cmd)));
      return d;
    };
    for (const kind of cmd.kinds) {
      const source = kind === 'video' ? found.video : (found.audio ?? found.video);
      if (!source) {
        out.warnings.push(`No ${kind} was found on this page (no <${kind}> element or og:${kind} tag).`);
        continue;
      }
      try {
        const file = await download(source);
        const id = kind === 'audio' ? await this.storeAudio(cmd, file) : await this.storeVideo(cmd, file);
        out.fields[kind] = artifactUrl(this.settings.publicBaseUrl, id, this.settings.artifactSigning);
        out.credits += MEDIA_CREDITS;
      } catch (err) {
        if (err instanceof ServiceError && err.code === 'SCRAPE_TIMEOUT') throw err;
        out.warnings.push(`The page's ${kind} (${source}) could not be obtained: ${(err as Error).message}`);
      }
    }
    return out;
  }

  private async download(url: string, cmd: MediaCommand): Promise<MediaFile> {
    const res = await this.http.request({
      url,
      timeoutMs: this.remaining(cmd),
      maxBytes: this.settings.maxBytes,
      skipTlsVerification: cmd.skipTlsVerification,
    });
    if (res.status < 200 || res.status >= 300) throw new Error(`the media URL answered HTTP ${res.status}`);
    return { url: res.url, body: res.body, contentType: res.contentType };
  }

  private async storeAudio(cmd: MediaCommand, file: MediaFile): Promise<string> {
    const kinds = await this.ffmpeg.streams(file.body, this.processBudget(cmd));
    if (!kinds.includes('audio')) throw new MediaReadError('the media file has no audio track');
    const mp3 = await this.ffmpeg.toMp3(file.body, this.processBudget(cmd));
    return this.artifacts.put(cmd.teamId, 'audio', 'audio/mpeg', mp3);
  }

  private async storeVideo(cmd: MediaCommand, file: MediaFile): Promise<string> {
    const kinds = await this.ffmpeg.streams(file.body, this.processBudget(cmd));
    if (!kinds.includes('video')) throw new MediaReadError('the media file has no video track');
    return this.artifacts.put(cmd.teamId, 'video', videoType(file), file.body);
  }

  private remaining(cmd: MediaCommand): number {
    const ms = cmd.deadline - this.now() - ANSWER_MARGIN_MS;
    if (ms < 200) throw new ServiceError('SCRAPE_TIMEOUT', 'Scrape timed out while fetching the page media');
    return ms;
  }

  private processBudget(cmd: MediaCommand): number {
    return Math.min(this.settings.processMs, this.remaining(cmd));
  }
}

const VIDEO_TYPES: Record<string, string> = {
  mp4: 'video/mp4',
  m4v: 'video/mp4',
  webm: 'video/webm',
  ogv: 'video/ogg',
  ogg: 'video/ogg',
  mov: 'video/quicktime',
  mkv: 'video/x-matroska',
};

interface MediaFile {
  url: string;
  body: Buffer;
  contentType?: string;
}

/** The served type: the host's when it names a video type, else by file extension. */
function videoType(file: MediaFile): string {
  const declared = (file.contentType ?? '').split(';')[0].trim().toLowerCase();
  if (declared.startsWith('video/')) return declared;
  const ext = /\.([a-z0-9]+)$/i.exec(new URL(file.url).pathname)?.[1]?.toLowerCase() ?? '';
  return VIDEO_TYPES[ext] ?? 'application/octet-stream';
}
