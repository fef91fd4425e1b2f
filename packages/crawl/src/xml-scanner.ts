/** Callbacks of {@link scanXml}. Names are local names (prefix removed), lowercase. */
export interface XmlHandler {
  open(name: string, attributes: string, selfClosing: boolean): void;
  /** Character data between tags: raw (entities still encoded) unless `cdata`. */
  text(text: string, cdata: boolean): void;
  close(name: string): void;
}

/**
 * A forgiving, linear XML tokenizer for feeds and sitemaps, which are often not well-formed: comments,
 * processing instructions and DOCTYPEs are skipped, CDATA becomes text, a `<` that cannot start a tag is
 * text, and an unterminated construct ends the scan. No tree is built and nothing is validated; the
 * handler sees tags in document order and decides what they mean.
 */
export function scanXml(src: string, handler: XmlHandler): void {
  const n = src.length;
  let i = 0;
  while (i < n) {
    const lt = src.indexOf('<', i);
    if (lt < 0) {
      handler.text(src.slice(i), false);
      return;
    }
    if (lt > i) handler.text(src.slice(i, lt), false);
    if (src.startsWith('<!--', lt)) {
      i = skipPast(src, '-->', lt + 4);
    } else if (src.startsWith('<![CDATA[', lt)) {
      const end = src.indexOf(']]>', lt + 9);
      handler.text(src.slice(lt + 9, end < 0 ? n : end), true);
      i = end < 0 ? n : end + 3;
    } else if (src.startsWith('<?', lt)) {
      i = skipPast(src, '?>', lt + 2);
    } else if (src.startsWith('<!', lt)) {
      i = skipDeclaration(src, lt + 2);
    } else if (/[A-Za-z_:/]/.test(src[lt + 1] ?? '')) {
      const end = tagEnd(src, lt + 1);
      if (end < 0) return;
      emitTag(src.slice(lt + 1, end), handler);
      i = end + 1;
    } else {
      handler.text('<', false);
      i = lt + 1;
    }
  }
}

function emitTag(inner: string, handler: XmlHandler): void {
  const closing = inner.startsWith('/');
  const body = closing ? inner.slice(1) : inner;
  const nameMatch = /^[^\s/>]+/.exec(body);
  if (nameMatch === null) return;
  const qname = nameMatch[0];
  const name = qname.slice(qname.lastIndexOf(':') + 1).toLowerCase();
  if (closing) {
    handler.close(name);
    return;
  }
  const selfClosing = body.endsWith('/');
  handler.open(name, body.slice(qname.length, selfClosing ? -1 : undefined), selfClosing);
  if (selfClosing) handler.close(name);
}

/** Index of the `>` ending a tag that starts at `from`, skipping quoted attribute values; -1 if none. */
function tagEnd(src: string, from: number): number {
  let quote = '';
  for (let i = from; i < src.length; i++) {
    const c = src[i];
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '>') {
      return i;
    }
  }
  return -1;
}

function skipPast(src: string, terminator: string, from: number): number {
  const end = src.indexOf(terminator, from);
  return end < 0 ? src.length : end + terminator.length;
}

/** Skips `<!DOCTYPE ...>` including an internal subset in `[...]`. */
function skipDeclaration(src: string, from: number): number {
  const gt = src.indexOf('>', from);
  const bracket = src.indexOf('[', from);
  if (bracket >= 0 && (gt < 0 || bracket < gt)) return skipPast(src, ']>', bracket);
  return gt < 0 ? src.length : gt + 1;
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes the five XML entities and numeric character references; unknown or invalid ones stay as written. */
export function decodeXmlEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#[xX][0-9A-Fa-f]{1,6}|#[0-9]{1,7}|[A-Za-z]{2,6});/g, (whole, ref: string) => {
    if (!ref.startsWith('#')) return NAMED_ENTITIES[ref] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
    const valid = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
    return valid ? String.fromCodePoint(code) : whole;
  });
}

/** Value of attribute `name` (local name, case-insensitive) in a tag's attribute text, entity-decoded. */
export function xmlAttribute(attributes: string, name: string): string | undefined {
  for (const m of attributes.matchAll(/([^\s=]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    const qname = (m[1] as string).toLowerCase();
    if (qname === name || qname.endsWith(`:${name}`)) return decodeXmlEntities(m[2] ?? m[3] ?? '');
  }
  return undefined;
}
