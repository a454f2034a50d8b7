import { sentences } from './extractive';
import { blocks, passageView, viewChars } from './passage-view';

const LONG = [
  'The gateway answers every request of the public API and checks its key first.',
  'It keeps nothing of its own between requests.',
  '',
  '| variable | default | meaning |',
  '| --- | --- | --- |',
  '| `WDS_PORT` | `3002` | port the gateway listens on for the public API |',
  '| `WDS_RATE_LIMIT` | `600` | requests per minute a team may send before it gets 429 |',
  '| `WDS_BODY_LIMIT` | `10mb` | largest request body accepted, larger ones get 413 |',
  '',
  '- A list item about tracing that goes on for a while',
  '  and continues on an indented line.',
  '',
  '```sh',
  'npm start',
  '',
  'npm test',
  '```',
  '',
  'Operators scale the gateway horizontally; it holds no state and any replica answers.',
].join('\n');

describe('blocks', () => {
  it('splits paragraphs, table rows and list items, keeps code fences whole, and maps onto the sentences', () => {
    const parts = blocks(LONG);
    expect(parts).toContain(
      '| `WDS_RATE_LIMIT` | `600` | requests per minute a team may send before it gets 429 |',
    );
    expect(parts).toContain(
      '- A list item about tracing that goes on for a while\n  and continues on an indented line.',
    );
    expect(parts).toContain('```sh\nnpm start\n\nnpm test\n```');
    // The index embeds `sentences(body)`; the view reads the same sentences block by block.
    expect(parts.flatMap(sentences)).toEqual(sentences(LONG));
  });
});

describe('passageView', () => {
  it('shows a body that fits whole', () => {
    expect(passageView(LONG, 'anything', undefined, 5000)).toBe(LONG);
  });

  it('shows the rows that match the question, with the table header, in document order', () => {
    const view = passageView(LONG, 'How many requests per minute before 429?', undefined, 300);
    expect(view.length).toBeLessThanOrEqual(300 + 4);
    expect(view).toContain('`WDS_RATE_LIMIT`');
    expect(view).toContain('| variable | default | meaning |');
    expect(view.indexOf('| variable')).toBeLessThan(view.indexOf('WDS_RATE_LIMIT'));
    expect(view).not.toContain('npm start');
    // Rows left out between the header and the row are marked.
    expect(view).toContain('| --- | --- | --- |\n…\n| `WDS_RATE_LIMIT`');
    expect(view.endsWith('\n…')).toBe(true);
  });

  it('follows the sentence similarities when given for every sentence, over shared words', () => {
    const count = sentences(LONG).length;
    const focus = sentences(LONG).map((s) => (s.startsWith('Operators scale') ? 0.9 : 0.1));
    expect(focus).toHaveLength(count);
    const view = passageView(LONG, 'How many requests per minute before 429?', focus, 120);
    expect(view).toContain('Operators scale the gateway horizontally');
    expect(view).not.toContain('WDS_RATE_LIMIT');
    // Similarities that do not cover every sentence are not trusted: words decide.
    const partial = passageView(LONG, 'How many requests per minute before 429?', focus.slice(1), 300);
    expect(partial).toContain('WDS_RATE_LIMIT');
  });

  it('cuts one block longer than the room it has', () => {
    const body = `${'word '.repeat(200)}\n\nshort paragraph about nothing much at all`;
    const view = passageView(body, 'word', undefined, 100);
    expect(view.length).toBeLessThanOrEqual(102);
    expect(view.endsWith('…')).toBe(true);
  });

  it('gives the best three passages more room than the ones after them', () => {
    expect(viewChars(0)).toBe(viewChars(2));
    expect(viewChars(3)).toBeLessThan(viewChars(2));
  });
});
