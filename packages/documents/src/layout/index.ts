import type { PageText } from '../types.js';
import { flowToBlocks } from './blocks.js';
import { pageToFragments } from './fragments.js';
import { dropPageFurniture } from './furniture.js';
import type { FlowItem } from './model.js';
import { orderPage } from './reading-order.js';
import { renderBlocks } from './render-html.js';
import { escapeHtml, normalizeSpaces } from './text-utils.js';

/** Options of {@link pagesToHtml}. */
export interface PagesToHtmlOptions {
  /** Becomes the document's `<title>`. */
  title?: string;
}

function htmlDocument(body: string, title: string | undefined): string {
  const head = title ? `<title>${escapeHtml(title)}</title>` : '';
  return `<!DOCTYPE html><html><head><meta charset="utf-8">${head}</head><body>\n${body}\n</body></html>`;
}

/** The analysis proper; may throw on input no test imagined, which {@link pagesToHtml} catches. */
function layoutBody(pages: PageText[]): string {
  const perPage = pages.map((p) => ({ ...pageToFragments(p), height: p.height, pageNumber: p.pageNumber }));
  dropPageFurniture(perPage);
  const regions = { next: 0 };
  const items: FlowItem[] = [];
  for (const page of perPage) {
    for (const item of orderPage(page.fragments, page.vertical, page.pageNumber, regions)) items.push(item);
  }
  return renderBlocks(flowToBlocks(items));
}

/** Last resort: the runs' text, one paragraph per page, in drawing order. */
function plainBody(pages: PageText[]): string {
  return pages
    .map((p) => normalizeSpaces((p.runs ?? []).map((r) => (typeof r.text === 'string' ? r.text : '')).join(' ')).trim())
    .filter((t) => t !== '')
    .map((t) => `<p>${escapeHtml(t)}</p>`)
    .join('\n');
}

/**
 * Positioned pages (PDF text layer, OCR) -> a semantic HTML document. Recovers reading order
 * (columns, a title above them), lines and paragraphs (hyphenation, CJK and RTL text), headings (font
 * size against the body text, bold short lines), bulleted and numbered lists, tables (aligned columns
 * over several lines), monospace code blocks and links; drops running headers, footers and page
 * numbers. Never throws: input it cannot analyse falls back to plain paragraphs.
 */
export function pagesToHtml(pages: PageText[], opts: PagesToHtmlOptions = {}): string {
  let body: string;
  try {
    body = layoutBody(pages);
  } catch {
    body = plainBody(pages);
  }
  return htmlDocument(body, opts.title);
}
