import { MAX_PASSAGE_CHARS, splitMarkdown } from './split-markdown';

describe('splitMarkdown', () => {
  it('makes one passage per heading section, cited by its GitHub anchor, with its heading trail and lines', () => {
    const text = [
      '# Webhooks', // 1
      '',
      'Jobs notify your endpoint.', // 3
      '',
      '## Delivery guarantees', // 5
      'At least once.',
      '### Retry schedule', // 7
      'After 30 s, then 2 min.',
      '```sh',
      '# not a heading inside a fence', // 10
      '```',
      '## Delivery guarantees', // 12: a repeated heading gets GitHub's -1 suffix
      'Second one.',
    ].join('\n');
    const passages = splitMarkdown('docs/webhooks.md', text);
    expect(passages.map((p) => [p.ref, p.title, p.lineStart, p.lineEnd])).toEqual([
      ['docs/webhooks.md#webhooks', 'Webhooks', 1, 3],
      ['docs/webhooks.md#delivery-guarantees', 'Webhooks › Delivery guarantees', 5, 6],
      ['docs/webhooks.md#retry-schedule', 'Webhooks › Delivery guarantees › Retry schedule', 7, 11],
      ['docs/webhooks.md#delivery-guarantees-1', 'Webhooks › Delivery guarantees', 12, 13],
    ]);
    expect(passages[2].body).toContain('# not a heading inside a fence');
    expect(passages.every((p) => p.source === 'docs/webhooks.md')).toBe(true);
  });

  it('skips a heading with no text of its own and keeps text before the first heading', () => {
    const passages = splitMarkdown('README.md', 'Intro line.\n# Title\n## Sub\nBody.');
    expect(passages.map((p) => p.ref)).toEqual(['README.md#L1-L1', 'README.md#sub']);
  });

  it("cuts a long section between blocks, cites each part by line range and repeats a cut table's header", () => {
    const rows = Array.from(
      { length: 80 },
      (_, i) => `| \`WDS_VAR_${i}\` | ${i} | what variable ${i} does, in a few words |`,
    );
    const text = [
      '# Service',
      '## Environment',
      '',
      'Intro paragraph.',
      '',
      '| variable | default | meaning |',
      '|---|---|---|',
      ...rows,
      '',
      'Closing paragraph that is long enough to stand on its own. '.repeat(6),
    ].join('\n');
    const passages = splitMarkdown('apps/x/README.md', text);
    expect(passages.length).toBeGreaterThan(2);
    for (const p of passages) {
      expect(p.ref).toMatch(/^apps\/x\/README\.md#L\d+-L\d+$/);
      expect(p.title).toBe('Service › Environment');
      expect(p.body.length).toBeLessThanOrEqual(MAX_PASSAGE_CHARS + 200);
    }
    const tableParts = passages.filter((p) => p.body.includes('WDS_VAR_'));
    expect(tableParts.length).toBeGreaterThan(1);
    for (const p of tableParts) expect(p.body).toContain('| variable | default | meaning |');
    // Every row is in exactly one part, and the line ranges follow each other.
    for (let i = 0; i < 80; i++)
      expect(
        passages.filter((p) => p.body.includes(`WDS_VAR_${i} `) || p.body.includes(`WDS_VAR_${i}\``)).length,
      ).toBe(1);
    const lines = text.split('\n');
    for (const p of passages) expect(lines[p.lineStart - 1].trim()).not.toBe('');
    for (let i = 1; i < passages.length; i++)
      expect(passages[i].lineStart).toBeGreaterThan(passages[i - 1].lineEnd);
  });
});
