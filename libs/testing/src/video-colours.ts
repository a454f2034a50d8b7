import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * What a video shows at its centre over time, decoded by ffmpeg: one letter per sample
 * (`perSecond` a second) of the mean colour of its central `crop`×`crop` pixels: R(ed), G(reen),
 * B(lue), W(hite), or ? for anything else. For tests of recordings of pages in plain colours.
 */
export async function videoCentreColours(file: string, perSecond = 2, crop = 100): Promise<string> {
  const out = await run(
    'ffmpeg',
    [
      '-v',
      'error',
      '-i',
      file,
      '-vf',
      `fps=${perSecond},crop=${crop}:${crop},scale=1:1`,
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      'pipe:1',
    ],
    { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 },
  );
  const px = out.stdout as unknown as Buffer;
  let seen = '';
  for (let i = 0; i + 2 < px.length; i += 3) seen += colourLetter(px[i], px[i + 1], px[i + 2]);
  return seen;
}

function colourLetter(r: number, g: number, b: number): string {
  if (r > 200 && g > 200 && b > 200) return 'W';
  if (r > 150 && g < 80 && b < 80) return 'R';
  if (g > 120 && r < 80 && b < 80) return 'G';
  if (b > 150 && r < 80 && g < 80) return 'B';
  return '?';
}
