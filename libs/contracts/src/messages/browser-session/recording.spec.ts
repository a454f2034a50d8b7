import { playlistFiles, playlistWithBase } from './recording';

const PLAYLIST = [
  '#EXTM3U',
  '#EXT-X-VERSION:3',
  '#EXT-X-TARGETDURATION:4',
  '#EXTINF:4.000000,',
  'seg00000.ts',
  '#EXTINF:2.500000,',
  ' seg00001.ts ',
  '',
  '#EXT-X-ENDLIST',
  '',
].join('\n');

describe('recording playlists', () => {
  it('lists the media files in order, trimmed, without tags or blank lines', () => {
    expect(playlistFiles(PLAYLIST)).toEqual(['seg00000.ts', 'seg00001.ts']);
    expect(playlistFiles('#EXTM3U\n')).toEqual([]);
  });

  it('names each media file by the base and keeps every other line as it is', () => {
    const base = 'https://wds.example/v2/browser/s/recording/t/';
    const out = playlistWithBase(PLAYLIST, base).split('\n');
    expect(out).toEqual([
      '#EXTM3U',
      '#EXT-X-VERSION:3',
      '#EXT-X-TARGETDURATION:4',
      '#EXTINF:4.000000,',
      `${base}seg00000.ts`,
      '#EXTINF:2.500000,',
      `${base}seg00001.ts`,
      '',
      '#EXT-X-ENDLIST',
      '',
    ]);
  });
});
