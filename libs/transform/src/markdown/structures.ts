import type { El } from '../dom/node';
import { F, rawAttr } from '../dom/node';
import type { MarkdownRenderer } from './render';
import type { Sink } from './sink';

interface Row {
  cells: El[];
  head: boolean;
}

function collectRows(el: El, inHead: boolean, rows: Row[], captions: El[]): void {
  for (const c of el.children) {
    if (typeof c === 'string' || c.flags & F.Removed) continue;
    switch (c.tag) {
      case 'tr': {
        const cells: El[] = [];
        for (const cell of c.children) {
          if (
            typeof cell !== 'string' &&
            (cell.tag === 'td' || cell.tag === 'th') &&
            !(cell.flags & F.Removed)
          )
            cells.push(cell);
        }
        rows.push({ cells, head: inHead });
        break;
      }
      case 'thead':
        collectRows(c, true, rows, captions);
        break;
      case 'caption':
        captions.push(c);
        break;
      case 'table':
      case 'colgroup':
      case 'col':
        break;
      default:
        collectRows(c, inHead, rows, captions);
    }
  }
}

function span(el: El, name: string): number {
  const n = parseInt(rawAttr(el, name) ?? '1', 10);
  return Number.isFinite(n) && n > 1 ? Math.min(n, 100) : 1;
}

/**
 * GFM table. The header is the `<thead>` row or else the first row; colspans/rowspans are filled with
 * empty cells so columns stay aligned. Layout tables (one column, or tables nesting tables) are rendered
 * as their content instead.
 */
export function renderTable(r: MarkdownRenderer, el: El, sink: Sink): void {
  const rows: Row[] = [];
  const captions: El[] = [];
  collectRows(el, false, rows, captions);
  let cols = 0;
  for (const row of rows) {
    let w = 0;
    for (const c of row.cells) w += span(c, 'colspan');
    cols = Math.max(cols, w);
  }
  if (sink.flat > 0 || cols <= 1 || el.flags & F.HasTable) {
    sink.flush();
    for (const cap of captions) r.element(cap, sink);
    for (const row of rows)
      for (const c of row.cells) {
        sink.flush();
        r.children(c, sink);
        sink.flush();
      }
    return;
  }
  sink.flush();
  for (const cap of captions) {
    const t = r.inlineOf(cap);
    if (t !== '') sink.push(t);
  }
  const lines: string[] = [];
  const carry: number[] = new Array<number>(cols).fill(0);
  const headIdx = Math.max(
    0,
    rows.findIndex((row) => row.head),
  );
  const ordered = headIdx > 0 ? [rows[headIdx], ...rows.slice(0, headIdx), ...rows.slice(headIdx + 1)] : rows;
  for (let ri = 0; ri < ordered.length; ri++) {
    const out: string[] = [];
    let ci = 0;
    const fill = (): void => {
      while (ci < cols && carry[ci] > 0) {
        carry[ci]--;
        out.push('');
        ci++;
      }
    };
    for (const cell of ordered[ri].cells) {
      fill();
      const text = r.inlineOf(cell).replace(/\|/g, '\\|');
      const cs = span(cell, 'colspan');
      const rs = span(cell, 'rowspan');
      for (let k = 0; k < cs && ci < cols; k++, ci++) {
        out.push(k === 0 ? text : '');
        if (rs > 1) carry[ci] = rs - 1;
      }
    }
    fill();
    while (out.length < cols) out.push('');
    if (ri > 0 && out.every((c) => c === '')) continue;
    lines.push(`| ${out.join(' | ')} |`);
    if (ri === 0) lines.push(`|${' --- |'.repeat(cols)}`);
  }
  sink.push(lines.join('\n'));
}

/** `<dl>`: each term in bold on its own line, each definition as a `: ` line below it. */
export function renderDefinitionList(r: MarkdownRenderer, el: El, sink: Sink): void {
  if (sink.flat > 0) {
    r.children(el, sink);
    return;
  }
  sink.flush();
  const groups: string[] = [];
  let group: string[] = [];
  let lastWasDd = false;
  const visit = (parent: El): void => {
    for (const c of parent.children) {
      if (typeof c === 'string' || c.flags & F.Removed) continue;
      if (c.tag === 'dt') {
        if (lastWasDd && group.length > 0) {
          groups.push(group.join('\n'));
          group = [];
        }
        const t = r.inlineOf(c);
        if (t !== '') group.push(`**${t}**`);
        lastWasDd = false;
      } else if (c.tag === 'dd') {
        const item = r.listItem(c, ': ');
        if (item !== '') group.push(item);
        lastWasDd = true;
      } else {
        visit(c);
      }
    }
  };
  visit(el);
  if (group.length > 0) groups.push(group.join('\n'));
  sink.push(groups.join('\n\n'));
}
