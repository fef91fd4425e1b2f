import type { Page } from 'playwright-core';

/**
 * Serializes the live document, with the content of open shadow roots written in place of their
 * host's light children (slots filled with what is assigned to them), so that web components' text
 * reaches the HTML pipeline. Runs in the page; it must stay self-contained (no closures over Node).
 * Without any shadow root it is `outerHTML` plus the doctype. Kept as page-side JavaScript source:
 * the packages compile without DOM types.
 */
const SERIALIZE_DOCUMENT = String.raw`(() => {
  const doc = document;
  const doctype = doc.doctype ? '<!DOCTYPE ' + doc.doctype.name + '>' : '';
  const hosts = doc.querySelectorAll('*');
  let hasShadow = false;
  for (const el of Array.from(hosts)) {
    if (el.shadowRoot) { hasShadow = true; break; }
  }
  if (!hasShadow) return doctype + doc.documentElement.outerHTML;

  const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
  const RAW = new Set(['script', 'style']);
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const escAttr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
  const out = [];
  // Iterative walk: pages can nest deeper than the JS stack allows.
  const stack = [doc.documentElement];
  while (stack.length) {
    const item = stack.pop();
    if (typeof item === 'string') { out.push(item); continue; }
    if (item.nodeType === 3) {
      const parent = item.parentNode;
      out.push(parent && RAW.has(parent.nodeName.toLowerCase()) ? (item.nodeValue ?? '') : esc(item.nodeValue ?? ''));
      continue;
    }
    if (item.nodeType !== 1) continue;
    const el = item;
    const tag = el.nodeName.toLowerCase();
    let children;
    if (tag === 'slot') {
      const assigned = el.assignedNodes({ flatten: true });
      children = assigned.length ? assigned : Array.from(el.childNodes);
      for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]);
      continue;
    }
    let attrs = '';
    for (const a of Array.from(el.attributes)) attrs += ' ' + a.name + '="' + escAttr(a.value) + '"';
    out.push('<' + tag + attrs + '>');
    if (VOID.has(tag)) continue;
    stack.push('</' + tag + '>');
    const root = el.shadowRoot;
    children = root ? Array.from(root.childNodes) : Array.from((tag === 'template' ? el.content : el).childNodes);
    for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]);
  }
  return doctype + out.join('');
})()`;

/**
 * The page's current URL and HTML, shadow DOM included; `html` is undefined when the HTML is longer
 * than `maxBytes`. The length is checked in the page, so an oversized document never crosses the
 * debugger protocol (UTF-8 bytes are then checked here). `characterSet` is the encoding the browser
 * decoded the document with (`document.characterSet`, e.g. `Shift_JIS`), as the page reports it.
 */
export async function capturePage(page: Page, opts: { maxBytes: number }): Promise<{ url: string; html: string | undefined; characterSet: string }> {
  const [html, characterSet] = await page.evaluate<[string | null, string]>(
    `[((html) => html.length > ${opts.maxBytes} ? null : html)(${SERIALIZE_DOCUMENT}), document.characterSet]`,
  );
  return { url: page.url(), html: html === null || Buffer.byteLength(html) > opts.maxBytes ? undefined : html, characterSet };
}
