/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;'));
}

const SAFE_SCHEME = /^(?:https?|mailto|ftp|tel):/i;

/**
 * A link target fit for `href`: absolute http(s), mailto, ftp and tel URLs, and `#fragments`. Anything
 * else (`javascript:`, `file:`, relative paths into the package) is dropped: the text stays, the link goes.
 */
export function safeHref(target: string | undefined): string | undefined {
  const t = target?.trim();
  if (!t) return undefined;
  if (t.startsWith('#')) return t.length > 1 ? t : undefined;
  return SAFE_SCHEME.test(t) ? t : undefined;
}

/** Options of {@link htmlDocument}. */
export interface HtmlDocumentOptions {
  /** Becomes `<title>`; absent means no title element. */
  title?: string;
  /** BCP 47 language tag for `<html lang>`. */
  language?: string;
  /** The body's inner HTML (already escaped). */
  body: string;
}

/** Wraps body HTML into a full document, as the worker's HTML pipeline expects. */
export function htmlDocument(opts: HtmlDocumentOptions): string {
  const lang = opts.language && /^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8})*$/.test(opts.language) ? ` lang="${opts.language.replace('_', '-')}"` : '';
  const title = opts.title ? `<title>${escapeHtml(opts.title)}</title>` : '';
  return `<!DOCTYPE html><html${lang}><head><meta charset="utf-8">${title}</head><body>\n${opts.body}\n</body></html>`;
}
