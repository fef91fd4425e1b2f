import type { PageText } from '../types.js';

/** Options of {@link pagesToHtml}. */
export interface PagesToHtmlOptions {
  /** Becomes the document's `<title>`. */
  title?: string;
}

const escapeHtml = (s: string): string => s.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));

/**
 * Positioned pages -> semantic HTML. First version: runs grouped into lines by their vertical
 * position, lines into paragraphs by the gaps between them. (The PDF work replaces this with the full
 * layout analysis: columns, headings, lists, tables.)
 */
export function pagesToHtml(pages: PageText[], opts: PagesToHtmlOptions = {}): string {
  const body: string[] = [];
  for (const page of pages) {
    const runs = [...page.runs].filter((r) => r.text.trim() !== '').sort((a, b) => a.y - b.y || a.x - b.x);
    const lines: { y: number; h: number; text: string[] }[] = [];
    for (const run of runs) {
      const last = lines.at(-1);
      if (last && Math.abs(run.y - last.y) < Math.max(2, last.h / 2)) last.text.push(run.text);
      else lines.push({ y: run.y, h: run.height, text: [run.text] });
    }
    let para: string[] = [];
    let prev: { y: number; h: number } | undefined;
    const flush = () => {
      if (para.length) body.push(`<p>${escapeHtml(para.join(' '))}</p>`);
      para = [];
    };
    for (const line of lines) {
      if (prev && line.y - prev.y > prev.h * 1.8) flush();
      para.push(line.text.join(' '));
      prev = line;
    }
    flush();
  }
  const title = opts.title ? `<title>${escapeHtml(opts.title)}</title>` : '';
  return `<!DOCTYPE html><html><head><meta charset="utf-8">${title}</head><body>${body.join('\n')}</body></html>`;
}
