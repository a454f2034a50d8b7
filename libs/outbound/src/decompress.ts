import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { upstreamFailed } from './errors';

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotli = promisify(zlib.brotliDecompress);

type Decoder = (buf: Buffer, opts: zlib.ZlibOptions) => Promise<Buffer>;

/** Servers send "deflate" both zlib-wrapped (correct) and raw (common), so both are accepted. */
const deflate: Decoder = async (buf, opts) => {
  try {
    return await inflate(buf, opts);
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw err;
    return inflateRaw(buf, opts);
  }
};

const DECODERS: Record<string, Decoder> = {
  gzip: gunzip,
  'x-gzip': gunzip,
  deflate,
  br: (buf, opts) => brotli(buf, opts as zlib.BrotliOptions),
};

const MAX_ENCODINGS = 3;

/**
 * Undoes `Content-Encoding` (applied in reverse order). Output is capped at `maxBytes`, so a small
 * compressed bomb cannot expand into memory. Returns undefined when an encoding is unknown
 * (the body is then passed on as received, with its header).
 */
export async function decodeContent(
  body: Buffer,
  contentEncoding: string | undefined,
  maxBytes: number,
  host: string,
): Promise<Buffer | undefined> {
  const encodings = (contentEncoding ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '' && e !== 'identity');
  if (encodings.length === 0 || encodings.length > MAX_ENCODINGS) return undefined;
  if (!encodings.every((e) => e in DECODERS)) return undefined;
  if (body.length === 0) return undefined;
  let out = body;
  for (const enc of encodings.reverse()) {
    try {
      out = await DECODERS[enc](out, { maxOutputLength: maxBytes });
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
        throw upstreamFailed(
          'too_large',
          `response from ${host} is larger than ${maxBytes} bytes once decompressed`,
          {
            host,
            maxBytes,
          },
        );
      }
      throw upstreamFailed('decode', `response from ${host} has a corrupt ${enc} body`, {
        host,
        encoding: enc,
      });
    }
  }
  return out;
}
