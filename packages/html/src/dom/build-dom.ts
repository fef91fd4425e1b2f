import { Comment, Document, Element, ProcessingInstruction, Text, type AnyNode, type ParentNode } from 'domhandler';
import { decodeHTML, decodeHTMLAttribute } from 'entities';

/*
 * A tokenizer and tree builder producing the tree of htmlparser2's `parseDocument` (HTML mode, default
 * options): the same implied end tags, void elements, raw-text elements, entity decoding, and the same
 * handling of malformed and truncated markup (checked against htmlparser2 on whole corpora and on
 * generated markup, see build-dom.test.ts). One deliberate difference: in attribute values, a legacy
 * entity followed by a letter or digit stays as written (`?a=1&ltid=2`), as in browsers. htmlparser2
 * runs a state machine per character and builds the tree through two layers of callbacks; scanning with
 * indexOf and building the domhandler nodes directly costs less than half as much, and parsing was half
 * of the pipeline's time.
 */

/** Elements that have no content and no end tag. */
const VOID_TAGS: ReadonlySet<string> = new Set([
  'area', 'base', 'basefont', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'img', 'input', 'isindex', 'keygen',
  'link', 'meta', 'param', 'source', 'track', 'wbr',
]);

const P_ONLY: ReadonlySet<string> = new Set(['p']);
const FORM_TAGS: ReadonlySet<string> = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']);
const DD_DT: ReadonlySet<string> = new Set(['dd', 'dt']);
const RT_RP: ReadonlySet<string> = new Set(['rt', 'rp']);
const TABLE_SECTIONS: ReadonlySet<string> = new Set(['thead', 'tbody']);

/** Per start tag, the elements it closes while one of them is the current element (implied end tags). */
const IMPLIED_CLOSE: ReadonlyMap<string, ReadonlySet<string>> = new Map<string, ReadonlySet<string>>([
  ['tr', new Set(['tr', 'th', 'td'])], ['th', new Set(['th'])], ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])], ['li', new Set(['li'])], ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])], ['dd', DD_DT], ['dt', DD_DT], ['rt', RT_RP], ['rp', RT_RP],
  ['tbody', TABLE_SECTIONS], ['tfoot', TABLE_SECTIONS],
  ...['select', 'input', 'output', 'button', 'datalist', 'textarea'].map((t): [string, ReadonlySet<string>] => [t, FORM_TAGS]),
  ...[
    'p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl',
    'fieldset', 'figcaption', 'figure', 'footer', 'form', 'header', 'hr', 'main', 'nav', 'ol', 'pre', 'section',
    'table', 'ul',
  ].map((t): [string, ReadonlySet<string>] => [t, P_ONLY]),
]);

/** Elements starting foreign content (self-closing tags are honoured inside), and those ending it. */
const FOREIGN_TAGS: ReadonlySet<string> = new Set(['math', 'svg']);
const INTEGRATION_TAGS: ReadonlySet<string> = new Set(['mi', 'mo', 'mn', 'ms', 'mtext', 'annotation-xml', 'foreignobject', 'desc', 'title']);

/**
 * Elements whose content is text up to an end tag, and that end tag's name; entities are decoded when it
 * is `title`. htmlparser2 tells these start tags apart by their first two letters, so `tmp`, `xitle` and
 * `xextarea` are raw text too (up to `</xmp`, `</title` and `</textarea`).
 */
const RAW_TEXT_END: ReadonlyMap<string, string> = new Map([
  ['script', 'script'], ['style', 'style'], ['title', 'title'], ['textarea', 'textarea'], ['xmp', 'xmp'],
  ['tmp', 'xmp'], ['xitle', 'title'], ['xextarea', 'textarea'],
]);

const NAME_END = /\s|\//;

/** Size of the table of names met (a power of two). */
const NAME_SLOTS = 256;

const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 9 || c === 13 || c === 12;
const isAlpha = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);

function skipSpace(html: string, from: number): number {
  let p = from;
  while (p < html.length && isSpace(html.charCodeAt(p))) p++;
  return p;
}

/** True when `html` has `</name` at `at` (any case) followed by whitespace or `>`. */
function isEndTag(html: string, at: number, name: string): boolean {
  const after = at + 2 + name.length;
  if (after >= html.length || html.charCodeAt(at + 1) !== 47) return false;
  const c = html.charCodeAt(after);
  if (c !== 62 && !isSpace(c)) return false;
  for (let k = 0; k < name.length; k++) if ((html.charCodeAt(at + 2 + k) | 0x20) !== name.charCodeAt(k)) return false;
  return true;
}

/**
 * Entities of a title decoded as htmlparser2 does: not an `&` that directly follows `<`, `</`, `</t` ...
 * (a possible start of the end tag), which stays as it is.
 */
function decodeTitle(raw: string): string {
  let out = '';
  let from = 0;
  for (let amp = raw.indexOf('&'); amp >= 0; amp = raw.indexOf('&', amp + 1)) {
    const lt = raw.lastIndexOf('<', amp);
    if (lt < 0 || amp - lt >= 7 || !'</title'.startsWith(raw.slice(lt, amp).toLowerCase())) continue;
    out += decodeHTML(raw.slice(from, amp)) + '&';
    from = amp + 1;
  }
  return out + decodeHTML(raw.slice(from));
}

/** Elements to hand back while building, see {@link BuildDomOptions}. */
export interface CollectElements {
  /** Names of the elements wanted. */
  readonly names: ReadonlySet<string>;
  /** Elements whose descendants are not wanted (the element itself still is, when its name is in `names`). */
  readonly skipInside: ReadonlySet<string>;
  /** Receives the wanted elements, in document order. */
  readonly into: Element[];
}

/** Options of {@link buildDom}. */
export interface BuildDomOptions {
  /** Elements to collect while building (saves a later walk over the whole tree). Default: none. */
  readonly collect?: CollectElements;
}

class DomBuilder {
  readonly doc = new Document([]);
  /** Open elements, the document at the bottom. */
  private readonly open: ParentNode[] = [this.doc];
  private readonly names: string[] = [''];
  /** Foreign-content flags pushed by svg/math and the integration points, popped by their end tags. */
  private readonly foreign: boolean[] = [false];
  /** Text node that following text is appended to (htmlparser2 merges text until the next node or end tag). */
  private lastText: Text | null = null;
  private textStart = 0;
  /** Where the last name read ends (see readName). */
  private nameEnd = 0;
  /**
   * Names read so far, by a hash of their characters: most tag and attribute names repeat, and a name
   * met before is returned without a new string (whose hash a Set lookup or a property store would
   * compute again).
   */
  private readonly knownNames: (string | undefined)[] = new Array<string | undefined>(NAME_SLOTS).fill(undefined);

  constructor(
    private readonly html: string,
    private readonly collect: CollectElements | undefined,
  ) {}

  build(): Document {
    const html = this.html;
    const n = html.length;
    let i = 0;
    while (i < n) {
      const lt = html.indexOf('<', i);
      if (lt < 0) break;
      const c = html.charCodeAt(lt + 1);
      if (!isAlpha(c) && c !== 47 && c !== 33 && c !== 63) {
        // Not markup: the `<` is text.
        i = lt + 1;
        continue;
      }
      this.flushText(lt);
      let next: number;
      if (c === 47) next = this.endTag(lt);
      else if (c === 33) next = this.declaration(lt);
      else if (c === 63) next = this.instruction(lt);
      else next = this.startTag(lt);
      if (next < 0) {
        this.textStart = lt;
        i = lt + 1;
      } else {
        this.textStart = next;
        i = next;
      }
    }
    this.flushText(n);
    return this.doc;
  }

  /**
   * Reads a name starting at `start` (its first character belongs to it whatever it is) up to
   * whitespace, `>`, and `/` or `=` when asked; lower-cased. Sets `nameEnd`; at the end of the input
   * returns '' with `nameEnd` at the end.
   */
  private readName(start: number, stopAtSlash: boolean, stopAtEquals: boolean): string {
    const html = this.html;
    const n = html.length;
    let hash = html.charCodeAt(start);
    // Upper-case ASCII, and any non-ASCII character (which may have a lower-case form).
    let lower = (hash >= 65 && hash <= 90) || hash > 127;
    let p = start + 1;
    for (; p < n; p++) {
      const c = html.charCodeAt(p);
      if (c === 62 || c === 32 || c === 10 || c === 9 || c === 13 || c === 12) break;
      if ((c === 47 && stopAtSlash) || (c === 61 && stopAtEquals)) break;
      if ((c >= 65 && c <= 90) || c > 127) lower = true;
      hash = (Math.imul(hash, 31) + c) | 0;
    }
    this.nameEnd = p;
    if (p >= n) return '';
    if (lower) return html.slice(start, p).toLowerCase();
    const slot = (hash ^ (hash >>> 11)) & (NAME_SLOTS - 1);
    const known = this.knownNames[slot];
    if (known !== undefined && known.length === p - start && html.startsWith(known, start)) return known;
    const name = html.slice(start, p);
    this.knownNames[slot] = name;
    return name;
  }

  /** Emits the text from `textStart` to `end`, entities decoded. */
  private flushText(end: number): void {
    if (end <= this.textStart) return;
    const raw = this.html.slice(this.textStart, end);
    this.textStart = end;
    this.text(raw.includes('&') ? decodeHTML(raw) : raw);
  }

  private text(data: string): void {
    if (data === '') return;
    if (this.lastText !== null) {
      this.lastText.data += data;
      return;
    }
    const node = new Text(data);
    this.append(node);
    this.lastText = node;
  }

  private append(node: AnyNode): void {
    const parent = this.open[this.open.length - 1] as ParentNode;
    const kids = parent.children;
    const prev = kids[kids.length - 1];
    if (prev !== undefined) {
      node.prev = prev;
      prev.next = node;
    }
    node.parent = parent;
    kids.push(node as never);
    this.lastText = null;
  }

  private closeCurrent(): void {
    this.open.pop();
    this.names.pop();
    this.lastText = null;
  }

  private impliedClose(name: string): void {
    const closes = IMPLIED_CLOSE.get(name);
    if (closes === undefined) return;
    while (this.open.length > 1 && closes.has(this.names[this.names.length - 1] as string)) this.closeCurrent();
  }

  private openElement(name: string, attribs: Record<string, string>, selfClosing: boolean): void {
    this.impliedClose(name);
    const el = new Element(name, attribs);
    this.append(el);
    if (this.collect?.names.has(name) === true && !this.inside(this.collect.skipInside)) this.collect.into.push(el);
    if (VOID_TAGS.has(name)) return;
    this.open.push(el);
    this.names.push(name);
    if (FOREIGN_TAGS.has(name)) this.foreign.push(true);
    else if (INTEGRATION_TAGS.has(name)) this.foreign.push(false);
    // `<x/>` closes x only in foreign content (svg, math); in HTML the slash is ignored.
    if (selfClosing && this.foreign[this.foreign.length - 1] === true) this.closeCurrent();
  }

  /** True when an open element has one of these names. */
  private inside(names: ReadonlySet<string>): boolean {
    for (let i = this.names.length - 1; i > 0; i--) if (names.has(this.names[i] as string)) return true;
    return false;
  }

  private closeElement(name: string): void {
    if (FOREIGN_TAGS.has(name) || INTEGRATION_TAGS.has(name)) this.foreign.pop();
    if (VOID_TAGS.has(name)) {
      if (name === 'br') this.append(new Element('br', {}));
      return;
    }
    const at = this.names.lastIndexOf(name);
    if (at > 0) {
      while (this.open.length > at) this.closeCurrent();
    } else if (name === 'p') {
      // `</p>` without an open p is an empty paragraph.
      this.append(new Element('p', {}));
    }
    // Any other unmatched end tag is dropped (and the text around it stays one node).
  }

  /**
   * `<name attrs>` at `lt`; returns the index after it (after the content of a raw-text element). A tag
   * cut off by the end of the input is dropped.
   */
  private startTag(lt: number): number {
    const html = this.html;
    const n = html.length;
    const name = this.readName(lt + 1, true, false);
    let p = this.nameEnd;
    if (p >= n) {
      // htmlparser2 keeps a cut-off name that could still become a raw-text tag name as text.
      const partial = html.slice(lt + 1).toLowerCase();
      for (const raw of RAW_TEXT_END.keys()) {
        if (raw.startsWith(partial)) {
          this.text(html.slice(lt + 1));
          break;
        }
      }
      return n;
    }
    const attribs: Record<string, string> = {};
    let count = 0;
    for (;;) {
      p = skipSpace(html, p);
      if (p >= n) return n;
      let c = html.charCodeAt(p);
      if (c === 62) {
        this.openElement(name, attribs, false);
        const rawEnd = RAW_TEXT_END.get(name);
        return rawEnd === undefined ? p + 1 : this.rawText(rawEnd, p + 1);
      }
      if (c === 47) {
        p = skipSpace(html, p + 1);
        if (p >= n) {
          // htmlparser2 emits the last character of the input as text here.
          this.impliedClose(name);
          this.text(html.slice(-1));
          return n;
        }
        if (html.charCodeAt(p) === 62) {
          this.openElement(name, attribs, true);
          return p + 1;
        }
        continue;
      }
      // The first character belongs to the name whatever it is (`<a =x>` has an attribute "=x").
      const attr = this.readName(p, true, true);
      p = skipSpace(html, this.nameEnd);
      if (p >= n) return n;
      let value = '';
      if (html.charCodeAt(p) === 61) {
        p = skipSpace(html, p + 1);
        if (p >= n) return n;
        c = html.charCodeAt(p);
        if (c === 34 || c === 39) {
          const close = html.indexOf(c === 34 ? '"' : "'", p + 1);
          if (close < 0) return n;
          value = html.slice(p + 1, close);
          p = close + 1;
        } else {
          const start = p;
          while (p < n && html.charCodeAt(p) !== 62 && !isSpace(html.charCodeAt(p))) p++;
          if (p >= n) return n;
          value = html.slice(start, p);
        }
        if (value.includes('&')) value = decodeHTMLAttribute(value);
      }
      // The first of repeated attributes wins.
      if (count === 0 || !Object.prototype.hasOwnProperty.call(attribs, attr)) attribs[attr] = value;
      count++;
    }
  }

  /** Content of a raw-text element opened before `from`, up to and with the end tag `name`. */
  private rawText(name: string, from: number): number {
    const html = this.html;
    let at = html.indexOf('<', from);
    while (at >= 0 && !isEndTag(html, at, name)) at = html.indexOf('<', at + 1);
    const end = at < 0 ? html.length : at;
    if (end > from) {
      const raw = html.slice(from, end);
      this.text(name === 'title' && raw.includes('&') ? decodeTitle(raw) : raw);
    }
    if (at < 0) return html.length;
    this.closeElement(name);
    return this.afterEndTag(at + 2 + name.length);
  }

  /** Skips what follows an end tag name up to `>`. */
  private afterEndTag(from: number): number {
    const html = this.html;
    const gt = html.charCodeAt(from) === 62 ? from : html.indexOf('>', from + 1);
    if (gt >= 0) return gt + 1;
    this.text(html.slice(-1));
    return html.length;
  }

  /** `</name ...>` at `lt`, or what htmlparser2 makes of `</` followed by something else. */
  private endTag(lt: number): number {
    const html = this.html;
    const n = html.length;
    const p = skipSpace(html, lt + 2);
    // `</>` and a trailing `</` are text.
    if (p >= n || html.charCodeAt(p) === 62) return -1;
    if (!isAlpha(html.charCodeAt(p))) {
      // `</3...>` is a comment.
      const gt = html.indexOf('>', p);
      if (gt < 0) {
        this.text(html.slice(p));
        return n;
      }
      this.append(new Comment(html.slice(p, gt)));
      return gt + 1;
    }
    const name = this.readName(p, false, false);
    if (this.nameEnd >= n) return n;
    this.closeElement(name);
    return this.afterEndTag(this.nameEnd);
  }

  /** `<!...>` at `lt`: comment, CDATA section (a comment in HTML) or declaration (doctype). */
  private declaration(lt: number): number {
    const html = this.html;
    const n = html.length;
    const p = lt + 2;
    if (p >= n) return n;
    const c = html.charCodeAt(p);
    let from: number;
    if (c === 45 && html.charCodeAt(p + 1) === 45) {
      // The opening dashes count towards `-->`: `<!-->` is an empty comment.
      const close = html.indexOf('-->', p);
      if (close >= 0) {
        this.append(new Comment(html.slice(p + 2, close)));
        return close + 3;
      }
      // An unclosed comment runs to the end of the input (when anything follows its start).
      if (p + 2 < n) this.append(new Comment(html.slice(p + 2)));
      return n;
    }
    if (c === 45) {
      from = p + 2;
    } else if (c === 91) {
      let k = 0;
      while (k < 6 && p + 1 + k < n && html.charCodeAt(p + 1 + k) === 'CDATA['.charCodeAt(k)) k++;
      if (k === 6) {
        const start = p + 7;
        const close = html.indexOf(']]>', start);
        if (close < 0 && start >= n) return n;
        this.append(new Comment(`[CDATA[${close < 0 ? html.slice(start) : html.slice(start, close)}]]`));
        return close < 0 ? n : close + 3;
      }
      from = p + 1 + k;
    } else {
      from = p + 1;
    }
    const gt = html.indexOf('>', from);
    if (gt < 0) {
      this.text(html.slice(p));
      return n;
    }
    this.instructionNode('!', html.slice(p, gt));
    return gt + 1;
  }

  /** `<?...>` at `lt`. */
  private instruction(lt: number): number {
    const html = this.html;
    const p = lt + 2;
    const gt = html.indexOf('>', p);
    if (gt < 0) {
      this.text(html.slice(p));
      return html.length;
    }
    this.instructionNode('?', html.slice(p, gt));
    return gt + 1;
  }

  private instructionNode(mark: string, value: string): void {
    const end = value.search(NAME_END);
    const name = (end < 0 ? value : value.slice(0, end)).toLowerCase();
    this.append(new ProcessingInstruction(mark + name, mark + value));
  }
}

/**
 * Parses HTML into a domhandler Document, node for node what htmlparser2's `parseDocument` builds with
 * its default options (no source positions).
 */
export function buildDom(html: string, opts: BuildDomOptions = {}): Document {
  return new DomBuilder(html, opts.collect).build();
}
