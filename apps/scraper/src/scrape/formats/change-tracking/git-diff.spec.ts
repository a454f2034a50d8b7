import { createTwoFilesPatch } from 'diff';
import { DIFF_MAX_EDITS, gitDiff } from './git-diff';

const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag} line ${i}`).join('\n');

describe('gitDiff', () => {
  it('prints the shortest diff as git does, and parses it', () => {
    const d = gitDiff('a\nb\nc\nd\ne\nf\ng\nh', 'a\nb\nc\nd\nE\nf\ng\nh');
    expect(d.text).toBe(
      '===================================================================\n--- previous\n+++ current\n' +
        '@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n',
    );
    expect(d.json.files[0].chunks[0].changes.filter((c) => c.type !== 'normal')).toHaveLength(2);
  });

  it('replaces every line when the versions share too little to search for the shortest diff', () => {
    // Nothing in common: 2 x 3,000 edits, past DIFF_MAX_EDITS.
    const previous = lines(3000, 'old');
    const current = lines(3000, 'new');
    expect(2 * 3000).toBeGreaterThan(DIFF_MAX_EDITS);
    const d = gitDiff(previous, current);
    const expected = createTwoFilesPatch('previous', 'current', `${previous}\n`, `${current}\n`, '', '', {
      context: 3,
    });
    // The same diff as the full search gives here (one hunk: all removed, all added), found in one pass.
    expect(d.text).toBe(expected);
    const changes = d.json.files[0].chunks[0].changes;
    expect(changes.filter((c) => c.type === 'del')).toHaveLength(3000);
    expect(changes.filter((c) => c.type === 'add')).toHaveLength(3000);
  });

  it('keeps the shortest diff of a long page with a few changed lines', () => {
    const previous = lines(30000, 'same');
    const current = previous.replace('same line 15000\n', 'changed line 15000\n');
    const d = gitDiff(previous, current);
    expect(d.text).toContain('-same line 15000\n+changed line 15000\n');
    expect(d.text.split('\n').length).toBeLessThan(20);
  });
});
