/**
 * The small block model every flowing-text reader (DOCX, ODT, PPTX, RTF) fills while it streams its
 * XML or tokens, and its rendering to semantic HTML. Readers decide what a paragraph is (heading, list
 * item, code); grouping list items into nested lists and code lines into `<pre>` happens here, once.
 */

/** A paragraph, with its inline HTML already built (see `InlineBuilder`). */
export interface ParagraphBlock {
  kind: 'paragraph';
  html: string;
  /** Heading level 1..6. */
  heading?: number;
  /** List membership: level 0 is the outermost list. */
  list?: { ordered: boolean; level: number };
  /** Preformatted line (consecutive ones share one `<pre><code>`); `html` is then plain escaped text. */
  code?: boolean;
}

/** One cell of a table: its own blocks, spans, and whether it is a header cell. */
export interface TableCell {
  blocks: Block[];
  colSpan?: number;
  rowSpan?: number;
  header?: boolean;
}

/** A table: rows of cells (cells covered by a span are absent). */
export interface TableBlock {
  kind: 'table';
  rows: TableCell[][];
}

/** Already rendered HTML (a sheet's table, a rule before the footnotes). */
export interface HtmlBlock {
  kind: 'html';
  html: string;
}

export type Block = ParagraphBlock | TableBlock | HtmlBlock;

/** Renders blocks to HTML: list items grouped into nested lists, code lines into `<pre>`, empty paragraphs dropped. */
export function renderBlocks(blocks: readonly Block[]): string {
  const out: string[] = [];
  const lists: { ordered: boolean; level: number }[] = [];
  // A list is written as one line: newlines between items would make the markdown list loose.
  const appendToList = (html: string): void => {
    if (out.length && lists.length) out[out.length - 1] += html;
    else out.push(html);
  };
  const closeListsTo = (depth: number): void => {
    while (lists.length > depth) {
      const closing = lists.at(-1)?.ordered ? '</li></ol>' : '</li></ul>';
      appendToList(closing);
      lists.pop();
    }
  };
  let code: string[] = [];
  const flushCode = (): void => {
    if (code.length) out.push(`<pre><code>${code.join('\n')}</code></pre>`);
    code = [];
  };
  for (const block of blocks) {
    if (block.kind === 'paragraph' && block.code) {
      closeListsTo(0);
      code.push(block.html);
      continue;
    }
    flushCode();
    if (block.kind === 'paragraph' && block.list && !block.heading) {
      if (block.html === '') continue;
      const { ordered, level } = block.list;
      while (lists.length && (lists.at(-1)?.level ?? 0) > level) closeListsTo(lists.length - 1);
      const top = lists.at(-1);
      if (top && top.level === level && top.ordered !== ordered) closeListsTo(lists.length - 1);
      const same = lists.at(-1);
      if (same && same.level === level) appendToList(`</li><li>${block.html}`);
      else {
        appendToList(`${ordered ? '<ol>' : '<ul>'}<li>${block.html}`);
        lists.push({ ordered, level });
      }
      continue;
    }
    closeListsTo(0);
    if (block.kind === 'html') out.push(block.html);
    else if (block.kind === 'table') out.push(renderTable(block));
    else if (block.html !== '') {
      const tag = block.heading ? `h${Math.min(6, Math.max(1, block.heading))}` : 'p';
      out.push(`<${tag}>${block.html}</${tag}>`);
    }
  }
  flushCode();
  closeListsTo(0);
  return out.join('\n');
}

function renderTable(table: TableBlock): string {
  const rows = table.rows.filter((row) => row.length > 0);
  if (rows.length === 0) return '';
  const body = rows.map((row) => {
    const cells = row.map((cell) => {
      const tag = cell.header ? 'th' : 'td';
      const span = `${(cell.colSpan ?? 1) > 1 ? ` colspan="${cell.colSpan}"` : ''}${(cell.rowSpan ?? 1) > 1 ? ` rowspan="${cell.rowSpan}"` : ''}`;
      return `<${tag}${span}>${cellHtml(cell.blocks)}</${tag}>`;
    });
    return `<tr>${cells.join('')}</tr>`;
  });
  return `<table>\n${body.join('\n')}\n</table>`;
}

/** A cell with one plain paragraph holds its inline HTML directly (a cleaner markdown table cell). */
function cellHtml(blocks: readonly Block[]): string {
  const nonEmpty = blocks.filter((b) => b.kind !== 'paragraph' || b.html !== '');
  const only = nonEmpty[0];
  if (nonEmpty.length === 1 && only?.kind === 'paragraph' && !only.heading && !only.list && !only.code) return only.html;
  if (nonEmpty.every((b) => b.kind === 'paragraph' && !b.heading && !b.list && !b.code)) {
    return nonEmpty.map((b) => (b.kind === 'paragraph' ? b.html : '')).join('<br>');
  }
  return renderBlocks(nonEmpty);
}
