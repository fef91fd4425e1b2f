import { Comment, Document, Element, ProcessingInstruction, Text, type AnyNode, type ParentNode } from 'domhandler';
import { decodeHTML, decodeHTMLAttribute } from 'entities';
import { foreignContent, html as parse5Html, parse } from 'parse5';
import { adapter } from 'parse5-htmlparser2-tree-adapter';
import type { CollectElements } from './build-dom.js';

/*
 * A fast builder of the HTML standard's tree for the markup most pages are made of: one pass with
 * indexOf over the input, the standard's tree-construction rules for the common insertion modes
 * (implied html/head/body, head content, body with the p/li/dd/dt/heading/button/form rules, implied end
 * tags, stray end tags, the active formatting elements with their reconstruction and the simple case of
 * the adoption agency, tables with implied tbody and tr, cells and captions, content after `</body>`).
 * Wherever its rules stop (foster parenting, the adoption agency's furthest block, select, template,
 * frameset, foreign content, unusual tokenizer states such as NUL, cut-off tags, `</>`, script data
 * with `<!--`), it gives up and returns null: parseHtml then runs parse5, so the tree is always the
 * standard's (checked node for node against parse5 on the html5lib suite and the corpora).
 */

const set = (s: string): ReadonlySet<string> => new Set(s.split(' '));
const NS_HTML = 'http://www.w3.org/1999/xhtml';
const NS_SVG = 'http://www.w3.org/2000/svg';
/** SVG elements whose content follows the HTML rules (HTML integration points). */
const SVG_INTEGRATION = set('foreignObject desc title');

const SPECIAL: ReadonlySet<string> = (() => {
  const ids = parse5Html.SPECIAL_ELEMENTS[parse5Html.NS.HTML];
  const out = new Set<string>();
  for (const name of Object.values(parse5Html.TAG_NAMES)) if (ids.has(parse5Html.getTagID(name))) out.add(name);
  return out;
})();

const VOID_IN_HEAD = set('base basefont bgsound link meta');
const HEAD_CONTENT = set('base basefont bgsound link meta noframes script style template title');
const CLOSES_P = set(
  'address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer header hgroup '
  + 'main menu nav ol p search section summary ul',
);
const HEADINGS = set('h1 h2 h3 h4 h5 h6');
const FORMATTING = set('b big code em font i s small strike strong tt u');
const FORMATTING_END = set('a b big code em font i nobr s small strike strong tt u');
const BLOCK_END = set(
  'address article aside blockquote button center details dialog dir div dl fieldset figcaption figure footer header '
  + 'hgroup listing main menu nav ol pre search section summary ul',
);
const IMPLIED_END = set('dd dt li optgroup option p rb rp rt rtc');
const SCOPE = set('applet caption html table td th marquee object template');
const BUTTON_SCOPE = set('applet caption html table td th marquee object template button');
const LIST_SCOPE = set('applet caption html table td th marquee object template ol ul');
const TABLE_SCOPE = set('html table template');
const IGNORED_IN_BODY = set('caption col colgroup frame head tbody td tfoot th thead tr');
const VOID_RECONSTRUCT = set('area br embed img keygen wbr');
const RAW_TEXT = set('style xmp iframe noembed noframes noscript');
const BAIL_START = set('frameset plaintext math frame');
const TEMPLATE_IMPLIED_END = set('caption colgroup dd dt li optgroup option p rb rp rt rtc tbody td tfoot th thead tr');
const TEMPLATE_TABLE = set('caption colgroup tbody tfoot thead');
const SELECT_TABLE_EXIT = set('caption table tbody tfoot thead tr td th');
const TABLE_CONTEXT = set('table template html');
const TBODY_CONTEXT = set('tbody tfoot thead template html');
const ROW_CONTEXT = set('tr template html');
const TABLE_SECTIONS = set('tbody tfoot thead');
const CELLS = set('td th');
const IN_TABLE_IGNORED_END = set('body caption col colgroup html tbody td tfoot th thead tr');
const TABLE_BODY_EXIT = set('caption col colgroup tbody tfoot thead');
const CELL_EXIT = set('caption col colgroup tbody td tfoot th thead tr');
const TABLE_TEXT_PARENT = set('table tbody tfoot thead tr template');

/** How the in-body rules treat a start tag: the common cases, and the rest (Other). */
const enum Start { Ordinary, ClosesP, VoidReconstruct, Other }
const BODY_START: ReadonlyMap<string, Start> = (() => {
  const m = new Map<string, Start>();
  for (const n of FORMATTING) m.set(n, Start.Other);
  for (const n of CLOSES_P) if (!m.has(n)) m.set(n, Start.ClosesP);
  for (const n of HEAD_CONTENT) if (!m.has(n)) m.set(n, Start.Other);
  for (const n of VOID_RECONSTRUCT) if (!m.has(n)) m.set(n, Start.VoidReconstruct);
  const other = 'caption col colgroup frame head tbody td tfoot th thead tr a image rb rtc rp rt nobr h1 h2 h3 h4 h5 h6 '
    + 'pre listing form li dd dt button applet marquee object table input param source track hr textarea xmp optgroup '
    + 'option select html body style iframe noembed noframes noscript plaintext frameset math svg template';
  for (const n of other.split(' ')) if (!m.has(n)) m.set(n, Start.Other);
  return m;
})();
/** How the in-body rules treat an end tag (names not in the map: any other end tag). */
const enum End { Block, Formatting, Other }
const BODY_END: ReadonlyMap<string, End> = (() => {
  const m = new Map<string, End>();
  for (const n of BLOCK_END) m.set(n, End.Block);
  for (const n of FORMATTING_END) m.set(n, End.Formatting);
  const other = 'body html p li dd dt h1 h2 h3 h4 h5 h6 form applet marquee object br template frameset';
  for (const n of other.split(' ')) m.set(n, End.Other);
  return m;
})();

const enum Mode {
  Initial, BeforeHtml, BeforeHead, InHead, AfterHead, InBody, InTable, InTableBody, InRow, InCell, InCaption,
  InColGroup, AfterBody, AfterAfterBody, InSelect, InSelectInTable, InTemplate,
}

const ASCII_UPPER = /[A-Z]+/g;
const toLower = (s: string): string => s.toLowerCase();
/** Size of the table of names met (a power of two). */
const NAME_SLOTS = 256;
const HTML5_DOCTYPE = /^<!doctype[\t\n\f ]+html[\t\n\f ]*>$/i;
const isSpace = (c: number): boolean => c === 32 || c === 10 || c === 9 || c === 12 || c === 13;
const isAlpha = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);

/** Thrown to stop: the input needs a rule this builder does not have. */
class Unsupported {
  constructor(readonly reason: string) {}
}

type Attribs = Record<string, string>;

/**
 * A fresh attribute map without a prototype, as parse5's adapter makes them. V8 keeps such an object in
 * dictionary mode from the start: adding a property is a hash insert, not a hidden-class transition
 * (attribute names vary so much that the transitions cost more than the rest of the tokenizer).
 */
const newAttribs = (): Attribs => Object.create(null) as Attribs;

/**
 * The one attribute map of every element that has no attributes (most of a page's elements): no map per
 * element to allocate and to keep alive. Frozen, so a write to it throws instead of giving every such
 * element the attribute; the pipeline writes only to attributes that exist (URL resolution, event
 * handlers), except on the elements in {@link OWN_ATTRIBS}, which always get a map of their own.
 */
const EMPTY_ATTRIBS: Attribs = Object.freeze(Object.create(null) as Attribs);
/** Elements whose attributes are written even when they had none: `html`/`body` (a repeated tag adds
 * its attributes), `img`/`image`/`source` (a lazy image's real URL goes into `src`). */
const OWN_ATTRIBS = set('html body img image source');

/** Whether an attribute name starts with `on` (an inline event handler, which cleanHtml removes). */
const isOnName = (name: string): boolean => name.charCodeAt(0) === 111 && name.charCodeAt(1) === 110;
function hasOnName(attribs: Attribs): boolean {
  for (const k of Object.keys(attribs)) if (isOnName(k)) return true;
  return false;
}

function makeElement(name: string, attribs: Attribs): Element {
  const el = new Element(name, attribs, []) as Element & Record<string, unknown>;
  el.namespace = NS_HTML;
  return el;
}

function appendNode(parent: ParentNode, node: AnyNode): void {
  const kids = parent.children;
  const n = kids.length;
  if (n === 0) {
    // A literal holds one slot; push onto an empty array reserves 16 (most elements have one child).
    parent.children = [node as never];
  } else {
    const prev = kids[n - 1] as AnyNode;
    prev.next = node;
    node.prev = prev;
    kids.push(node as never);
  }
  node.parent = parent;
}

function detach(node: AnyNode): void {
  const parent = node.parent;
  if (parent === null) return;
  const { prev, next } = node;
  if (prev !== null) prev.next = next;
  if (next !== null) next.prev = prev;
  node.prev = null;
  node.next = null;
  parent.children.splice(parent.children.indexOf(node), 1);
  node.parent = null;
}

function sameAttribs(a: Attribs, b: Attribs): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (b[k] !== a[k]) return false;
  return true;
}

class StandardBuilder {
  readonly doc: Document;
  private readonly html: string;
  private pos = 0;
  private mode = Mode.Initial;
  private quirks = true;
  private sawDoctype = false;
  private readonly open: Element[] = [];
  private readonly names: string[] = [];
  private head: Element | null = null;
  private form: Element | null = null;
  /** Active formatting elements; null is a marker. */
  private readonly afe: (Element | null)[] = [];
  private skipLf = false;
  /** How many p elements are open (most pages have none open most of the time: no scope walk then). */
  private openP = 0;
  /** Where the last name read ends (see readName). */
  private nameEnd = 0;
  /** Names read so far, by a hash of their characters (see readName). */
  private readonly knownNames: (string | undefined)[] = new Array<string | undefined>(NAME_SLOTS).fill(undefined);
  /** The stack of template insertion modes. */
  private readonly templateModes: Mode[] = [];
  /** Whether the last tag read ended with `/>`. */
  private selfClosing = false;
  /** The attributes readAttributes read (EMPTY_ATTRIBS when there were none). */
  private attribs: Attribs = EMPTY_ATTRIBS;
  /**
   * Every attribute map made with an `on*` attribute (a superset of those in the tree: maps of ignored
   * tags are in it too), so cleanHtml need not list the attributes of every element.
   */
  readonly onAttribs: Attribs[] = [];

  /** The wanted elements (see CollectElements) in document order, as they are inserted. */
  readonly collected: Element[] = [];
  /** Whether the adoption agency moved nodes (then insertion order may not be document order). */
  moved = false;

  constructor(html: string, private readonly maxDepth: number, private readonly collect: CollectElements | undefined) {
    this.html = html;
    this.doc = new Document([]);
    (this.doc as unknown as Record<string, unknown>)['x-mode'] = 'no-quirks';
  }

  build(): Document {
    const html = this.html;
    const n = html.length;
    let textStart = 0;
    let i = 0;
    while (i < n) {
      const lt = html.indexOf('<', i);
      if (lt < 0) break;
      const c = html.charCodeAt(lt + 1);
      if (!isAlpha(c) && c !== 47 && c !== 33 && c !== 63) {
        if (lt + 1 >= n) throw new Unsupported('eof');
        i = lt + 1;
        continue;
      }
      if (lt > textStart) this.textToken(html.slice(textStart, lt));
      if (c === 47) i = this.endTagToken(lt);
      else if (c === 33) i = this.declarationToken(lt);
      else if (c === 63) i = this.bogusComment(lt, lt + 1);
      else i = this.startTagToken(lt);
      textStart = i;
    }
    if (n > textStart) this.textToken(html.slice(textStart));
    this.eof();
    if (!this.sawDoctype) (this.doc as unknown as Record<string, unknown>)['x-mode'] = 'quirks';
    return this.doc;
  }

  // ---- tokenizer ----

  private textToken(raw: string): void {
    this.chars(raw.includes('&') ? decodeHTML(raw) : raw);
  }

  /**
   * Reads a tag or attribute name from `from` (its first character belongs to it whatever it is) up to
   * whitespace, `/`, `>` (and `=` when asked); ASCII letters lower-cased. Sets `nameEnd`. A name met
   * before is returned without a new string (most names repeat).
   */
  private readName(from: number, stopAtEquals: boolean): string {
    const html = this.html;
    const n = html.length;
    let hash = html.charCodeAt(from);
    let upper = hash >= 65 && hash <= 90;
    let p = from + 1;
    for (; p < n; p++) {
      const c = html.charCodeAt(p);
      if (c === 62 || c === 47 || c === 32 || c === 10 || c === 9 || c === 12 || c === 13 || (c === 61 && stopAtEquals)) break;
      if (c >= 65 && c <= 90) upper = true;
      hash = (Math.imul(hash, 31) + c) | 0;
    }
    if (p >= n) throw new Unsupported('eof in tag');
    this.nameEnd = p;
    // Only ASCII letters are lower-cased.
    if (upper) return html.slice(from, p).replace(ASCII_UPPER, toLower);
    const slot = (hash ^ (hash >>> 11)) & (NAME_SLOTS - 1);
    const known = this.knownNames[slot];
    if (known !== undefined && known.length === p - from && html.startsWith(known, from)) return known;
    const name = html.slice(from, p);
    this.knownNames[slot] = name;
    return name;
  }

  private skipSpace(from: number): number {
    const html = this.html;
    let p = from;
    while (p < html.length && isSpace(html.charCodeAt(p))) p++;
    if (p >= html.length) throw new Unsupported('eof in tag');
    return p;
  }

  /** Reads attributes from `from` into `attribs` up to and with the tag's `>`; returns the index after it. */
  private readAttributes(from: number, keep: boolean): number {
    const html = this.html;
    let p = from;
    this.selfClosing = false;
    let attribs = EMPTY_ATTRIBS;
    let count = 0;
    let on = false;
    for (;;) {
      let c = html.charCodeAt(p);
      if (c === 32 || c === 10 || c === 9 || c === 12 || c === 13) {
        p = this.skipSpace(p);
        c = html.charCodeAt(p);
      } else if (p >= html.length) {
        throw new Unsupported('eof in tag');
      }
      if (c === 62) {
        p++;
        break;
      }
      if (c === 47) {
        p++;
        if (p >= html.length) throw new Unsupported('eof in tag');
        if (html.charCodeAt(p) === 62) {
          p++;
          this.selfClosing = true;
          break;
        }
        continue;
      }
      const attr = this.readName(p, true);
      p = this.nameEnd;
      if (isSpace(html.charCodeAt(p))) p = this.skipSpace(p);
      let value = '';
      if (html.charCodeAt(p) === 61) {
        p++;
        if (isSpace(html.charCodeAt(p))) p = this.skipSpace(p);
        if (p >= html.length) throw new Unsupported('eof in tag');
        c = html.charCodeAt(p);
        if (c === 34 || c === 39) {
          const close = html.indexOf(c === 34 ? '"' : "'", p + 1);
          if (close < 0) throw new Unsupported('eof in attribute');
          value = html.slice(p + 1, close);
          p = close + 1;
          if (p >= html.length) throw new Unsupported('eof in tag');
        } else {
          const start = p;
          while (p < html.length && html.charCodeAt(p) !== 62 && !isSpace(html.charCodeAt(p))) p++;
          if (p >= html.length) throw new Unsupported('eof in tag');
          value = html.slice(start, p);
        }
        if (value.includes('&')) value = decodeHTMLAttribute(value);
      }
      // The first of repeated attributes wins (the map has no prototype: undefined means not set yet).
      if (keep && (count === 0 || attribs[attr] === undefined)) {
        if (attr === '__proto__') throw new Unsupported('__proto__');
        if (count === 0) attribs = newAttribs();
        attribs[attr] = value;
        if (isOnName(attr)) on = true;
      }
      count++;
    }
    if (on) this.onAttribs.push(attribs);
    this.attribs = attribs;
    return p;
  }

  private startTagToken(lt: number): number {
    const name = this.readName(lt + 1, false);
    const p = this.readAttributes(this.nameEnd, true);
    let attribs = this.attribs;
    if (attribs === EMPTY_ATTRIBS && OWN_ATTRIBS.has(name)) attribs = newAttribs();
    const selfClosing = this.selfClosing;
    this.pos = p;
    const cur = this.current;
    if (cur !== undefined && cur.namespace === NS_SVG) {
      if (SVG_INTEGRATION.has(cur.name)) throw new Unsupported('html in svg');
      this.startInSvg(name, attribs, selfClosing);
    } else if (name === 'svg' && this.mode !== Mode.InSelect && this.mode !== Mode.InSelectInTable) {
      this.skipLf = false;
      if (this.mode === Mode.InTemplate) {
        this.mode = Mode.InBody;
        this.templateModes[this.templateModes.length - 1] = Mode.InBody;
      }
      if (this.mode === Mode.AfterBody || this.mode === Mode.AfterAfterBody) this.mode = Mode.InBody;
      while (this.mode < Mode.InBody) this.anythingElseBeforeBody();
      if (this.mode !== Mode.InBody && this.mode !== Mode.InCell && this.mode !== Mode.InCaption) throw new Unsupported('foster <svg>');
      this.reconstruct();
      this.startInSvg(name, attribs, selfClosing);
    } else {
      this.startTag(name, attribs);
    }
    return this.pos;
  }

  private endTagToken(lt: number): number {
    const html = this.html;
    const first = html.charCodeAt(lt + 2);
    if (!isAlpha(first)) {
      // `</>` is dropped; `</` and another character (`</ x>`, `</3>`) starts a bogus comment up to `>`.
      if (first === 62) return lt + 3;
      if (lt + 2 >= html.length) throw new Unsupported('odd end tag');
      return this.bogusComment(lt, lt + 2);
    }
    const name = this.readName(lt + 2, false);
    // Attributes of an end tag are read and dropped.
    const p = this.readAttributes(this.nameEnd, false) - 1;
    const cur = this.current;
    if (cur !== undefined && cur.namespace === NS_SVG) this.endInSvg(name);
    else this.endTag(name);
    return p + 1;
  }

  /** A start tag in SVG content (and `<svg>` itself): an SVG element, its name and attributes adjusted. */
  private startInSvg(name: string, attribs: Attribs, selfClosing: boolean): void {
    const attrs: { name: string; value: string; prefix?: string; namespace?: string }[] = [];
    for (const k of Object.keys(attribs)) attrs.push({ name: k, value: attribs[k] as string });
    const token = { tagName: name, tagID: parse5Html.getTagID(name), attrs };
    if (name !== 'svg' && foreignContent.causesExit(token as never)) throw new Unsupported('html in svg');
    foreignContent.adjustTokenSVGTagName(token as never);
    foreignContent.adjustTokenSVGAttrs(token as never);
    foreignContent.adjustTokenXMLAttrs(token as never);
    const el = adapter.createElement(token.tagName, NS_SVG as never, attrs as never);
    if (hasOnName(el.attribs)) this.onAttribs.push(el.attribs);
    appendNode(this.parentForInsert(), el);
    if (this.collect?.names.has(el.name) === true) this.collectInserted(el);
    if (!selfClosing) {
      if (this.open.length >= this.maxDepth) throw new Unsupported(TOO_DEEP);
      this.open.push(el);
      // Named apart from HTML elements: the HTML rules' name checks never match an SVG element.
      this.names.push(`svg ${el.name}`);
    }
  }

  /** An end tag in SVG content: closes the SVG element of that name (HTML elements stop the builder). */
  private endInSvg(name: string): void {
    if (name === 'br' || name === 'p') throw new Unsupported('html end in svg');
    for (let i = this.open.length - 1; i > 0; i--) {
      const el = this.open[i] as Element;
      if (el.namespace !== NS_SVG) throw new Unsupported('html end in svg');
      if (el.name.toLowerCase() === name) {
        while (this.open.length > i) this.pop();
        return;
      }
    }
  }

  private declarationToken(lt: number): number {
    const html = this.html;
    if (html.startsWith('--', lt + 2)) {
      // The first `-->` (its dashes may be those of `<!--`) or `--!>` ends the comment.
      // (Searched within the comment only: a page of many comments is not scanned to its end each time.)
      const close = html.indexOf('-->', lt + 2);
      const data = close < 0 ? '' : close < lt + 4 ? '' : html.slice(lt + 4, close);
      const bang = close < 0 ? html.indexOf('--!>', lt + 4) : data.indexOf('--!>');
      if (bang >= 0) {
        const end = close < 0 ? bang : lt + 4 + bang;
        this.comment(html.slice(lt + 4, end));
        return end + 4;
      }
      if (close < 0) return this.commentToEof(lt);
      this.comment(data);
      return close + 3;
    }
    const gt = html.indexOf('>', lt);
    if (gt < 0) throw new Unsupported('eof in declaration');
    if (html.slice(lt + 2, lt + 9).toLowerCase() === 'doctype') {
      this.doctype(html.slice(lt, gt + 1));
      return gt + 1;
    }
    if (html.startsWith('[CDATA[', lt + 2)) throw new Unsupported('cdata');
    return this.bogusComment(lt, lt + 2);
  }

  /**
   * A comment that `-->` never closes runs to the end of the input, without the one or two dashes it
   * ends with (they began a `-->` the input cut off); `--!` at the end stops the builder.
   */
  private commentToEof(lt: number): number {
    const html = this.html;
    const from = lt + 4;
    if (html.endsWith('--!')) throw new Unsupported('unclosed comment');
    let end = html.length;
    for (let dashes = 0; dashes < 2 && end > from && html.charCodeAt(end - 1) === 45; dashes++) end--;
    this.comment(end > from ? html.slice(from, end) : '');
    return html.length;
  }

  private bogusComment(lt: number, from: number): number {
    const gt = this.html.indexOf('>', lt);
    if (gt < 0) throw new Unsupported('eof in comment');
    this.comment(this.html.slice(from, gt));
    return gt + 1;
  }

  /** Reads the content of a raw-text element up to its end tag; the element is not kept open. */
  private rawText(el: Element, kind: 'rcdata' | 'rawtext' | 'script'): void {
    const html = this.html;
    const name = el.name;
    const from = this.pos;
    let at = kind === 'script' ? this.scriptEnd(from) : html.indexOf('</', from);
    for (;;) {
      if (at < 0) throw new Unsupported('eof in raw text');
      const after = at + 2 + name.length;
      if (html.slice(at + 2, after).toLowerCase() === name) {
        const c = html.charCodeAt(after);
        if (c === 62 || c === 47 || isSpace(c)) break;
      }
      at = html.indexOf('</', at + 2);
    }
    let text = html.slice(from, at);
    if (kind === 'rcdata' && text.includes('&')) text = decodeHTML(text);
    if (name === 'textarea' && text.charCodeAt(0) === 10) text = text.slice(1);
    if (text !== '') appendNode(el, new Text(text));
    // Attributes of the end tag (`</script foo="a>b">`) are read up to its `>` and dropped.
    this.pos = this.readAttributes(at + 2 + name.length, false);
  }

  /** True when `html` has `<` + optional `/` + `script` at `at`, followed by whitespace, `/` or `>`. */
  private scriptTagAt(at: number, slash: boolean): boolean {
    const html = this.html;
    const p = at + (slash ? 2 : 1);
    if (html.slice(p, p + 6).toLowerCase() !== 'script') return false;
    const c = html.charCodeAt(p + 6);
    return c === 62 || c === 47 || isSpace(c);
  }

  /**
   * Where the content of a script ends (the index of its `</script`), with the standard's script data
   * states: after `<!--` a `<script` starts a double-escaped run that a `</script` ends, up to `-->`.
   */
  private scriptEnd(from: number): number {
    const html = this.html;
    let p = from;
    for (;;) {
      // Script data: `</script` ends, `<!--` escapes.
      const lt = html.indexOf('<', p);
      if (lt < 0) return -1;
      if (html.charCodeAt(lt + 1) === 47 && this.scriptTagAt(lt, true)) return lt;
      if (!html.startsWith('<!--', lt)) {
        p = lt + 1;
        continue;
      }
      // Escaped: `-->` (its dashes may be those of `<!--`) back to script data, `</script` ends, `<script` double-escapes.
      let q = lt + 2;
      for (;;) {
        const dashes = html.indexOf('-->', q);
        let tag = html.indexOf('<', lt + 4 > q ? lt + 4 : q);
        while (tag >= 0 && (dashes < 0 || tag < dashes) && !this.scriptTagAt(tag, html.charCodeAt(tag + 1) === 47)) {
          tag = html.indexOf('<', tag + 1);
        }
        if (tag >= 0 && (dashes < 0 || tag < dashes)) {
          if (html.charCodeAt(tag + 1) === 47) return tag;
          // Double-escaped: `</script` back to escaped, `-->` back to script data.
          const end = html.indexOf('</', tag + 7);
          const d2 = html.indexOf('-->', tag + 7);
          let e = end;
          while (e >= 0 && (d2 < 0 || e < d2) && !this.scriptTagAt(e, true)) e = html.indexOf('</', e + 2);
          if (e >= 0 && (d2 < 0 || e < d2)) {
            q = e + 8;
            continue;
          }
          if (d2 < 0) return -1;
          p = d2 + 3;
          break;
        }
        if (dashes < 0) return -1;
        p = dashes + 3;
        break;
      }
    }
  }

  // ---- tree construction ----

  private get current(): Element | undefined {
    return this.open[this.open.length - 1];
  }

  private get currentName(): string {
    return this.names[this.names.length - 1] ?? '';
  }

  private parentForInsert(): ParentNode {
    const cur = this.open[this.open.length - 1];
    if (cur === undefined) return this.doc;
    // Into a template: into its content fragment.
    if (this.templateModes.length > 0 && cur.name === 'template' && cur.namespace === NS_HTML) return cur.children[0] as Document;
    return cur;
  }

  private insertText(data: string): void {
    const parent = this.parentForInsert();
    const last = parent.children[parent.children.length - 1];
    if (last !== undefined && last.type === 'text') (last as Text).data += data;
    else appendNode(parent, new Text(data));
  }

  private comment(data: string): void {
    this.skipLf = false;
    switch (this.mode) {
      case Mode.Initial:
      case Mode.BeforeHtml:
      case Mode.AfterAfterBody:
        appendNode(this.doc, new Comment(data));
        return;
      case Mode.AfterBody:
        appendNode(this.open[0] as Element, new Comment(data));
        return;
      default:
        appendNode(this.parentForInsert(), new Comment(data));
    }
  }

  private doctype(raw: string): void {
    this.skipLf = false;
    if (this.mode !== Mode.Initial) return;
    if (HTML5_DOCTYPE.test(raw)) {
      // `<!DOCTYPE html>`, the common case: built here as parse5's adapter builds it.
      const node = new ProcessingInstruction('!doctype', '!DOCTYPE html') as ProcessingInstruction & Record<string, unknown>;
      node['x-name'] = 'html';
      node['x-publicId'] = '';
      node['x-systemId'] = '';
      appendNode(this.doc, node);
      this.sawDoctype = true;
      this.quirks = false;
      (this.doc as unknown as Record<string, unknown>)['x-mode'] = 'no-quirks';
      this.mode = Mode.BeforeHtml;
      return;
    }
    const d = parse(raw, { treeAdapter: adapter });
    const node = d.children[0];
    if (node === undefined || node.type !== 'directive') throw new Unsupported('doctype');
    d.children.length = 0;
    node.parent = null;
    node.next = null;
    appendNode(this.doc, node);
    this.sawDoctype = true;
    const mode = (d as unknown as Record<string, unknown>)['x-mode'];
    this.quirks = mode === 'quirks';
    (this.doc as unknown as Record<string, unknown>)['x-mode'] = mode;
    this.mode = Mode.BeforeHtml;
  }

  private push(el: Element): void {
    appendNode(this.parentForInsert(), el);
    if (this.open.length >= this.maxDepth) throw new Unsupported(TOO_DEEP);
    this.open.push(el);
    this.names.push(el.name);
    if (el.name === 'p') this.openP++;
  }

  private insert(name: string, attribs: Attribs): Element {
    const el = makeElement(name, attribs);
    this.push(el);
    if (this.collect?.names.has(name) === true) this.collectInserted(el);
    return el;
  }

  private insertVoid(name: string, attribs: Attribs): void {
    const el = makeElement(name, attribs);
    appendNode(this.parentForInsert(), el);
    if (this.collect?.names.has(name) === true) this.collectInserted(el);
  }

  private insertRaw(name: string, attribs: Attribs, parent: ParentNode = this.parentForInsert()): void {
    const el = makeElement(name, attribs);
    appendNode(parent, el);
    if (this.collect?.names.has(name) === true) this.collectInserted(el);
    this.rawText(el, name === 'script' ? 'script' : name === 'title' || name === 'textarea' ? 'rcdata' : 'rawtext');
  }

  /**
   * Collects a wanted element just inserted unless it is inside a template's content or an element of
   * `skipInside`. Insertion is at the end of the document in tree order (foster parenting is not built
   * here; the adoption agency's moves set `moved`), so the list is in document order.
   */
  private collectInserted(el: Element): void {
    const skip = (this.collect as CollectElements).skipInside;
    for (let p = el.parent; p !== null; p = p.parent) {
      if (p.type === 'root') {
        if (p === this.doc) this.collected.push(el);
        return;
      }
      if (skip.has((p as Element).name)) return;
    }
  }

  private pop(): string {
    this.open.pop();
    const name = this.names.pop() as string;
    if (name === 'p') this.openP--;
    return name;
  }

  private popUntil(name: string): void {
    while (this.names.length > 0) if (this.pop() === name) return;
  }

  private popUntilOneOf(names: ReadonlySet<string>): void {
    while (this.names.length > 0) if (names.has(this.pop())) return;
  }

  private clearBackTo(context: ReadonlySet<string>): void {
    while (!context.has(this.currentName)) this.pop();
  }

  private impliedEnd(except?: string): void {
    for (;;) {
      const top = this.currentName;
      if (!IMPLIED_END.has(top) || top === except) return;
      this.pop();
    }
  }

  private inScope(name: string, boundary: ReadonlySet<string>): boolean {
    for (let i = this.names.length - 1; i >= 0; i--) {
      const nm = this.names[i] as string;
      if (nm === name) return true;
      if (boundary.has(nm)) return false;
    }
    return false;
  }

  private anyInScope(names: ReadonlySet<string>, boundary: ReadonlySet<string>): boolean {
    for (let i = this.names.length - 1; i >= 0; i--) {
      const nm = this.names[i] as string;
      if (names.has(nm)) return true;
      if (boundary.has(nm)) return false;
    }
    return false;
  }

  private closePIfInButtonScope(): void {
    if (this.openP > 0 && this.inScope('p', BUTTON_SCOPE)) {
      this.impliedEnd('p');
      this.popUntil('p');
    }
  }

  private reconstruct(): void {
    const afe = this.afe;
    const n = afe.length;
    if (n === 0) return;
    const last = afe[n - 1];
    if (last === null || last === undefined || this.open.lastIndexOf(last) >= 0) return;
    if (this.current?.namespace === NS_SVG) throw new Unsupported('formatting in svg');
    let i = n - 1;
    while (i > 0) {
      const prev = afe[i - 1];
      if (prev === null || prev === undefined || this.open.lastIndexOf(prev) >= 0) break;
      i--;
    }
    for (; i < n; i++) {
      const old = afe[i] as Element;
      let attribs = EMPTY_ATTRIBS;
      if (old.attribs !== EMPTY_ATTRIBS) {
        attribs = newAttribs();
        for (const k of Object.keys(old.attribs)) attribs[k] = old.attribs[k] as string;
        if (hasOnName(attribs)) this.onAttribs.push(attribs);
      }
      afe[i] = this.insert(old.name, attribs);
    }
  }

  private pushFormatting(el: Element): void {
    const afe = this.afe;
    let count = 0;
    let earliest = -1;
    for (let i = afe.length - 1; i >= 0; i--) {
      const e = afe[i];
      if (e === null || e === undefined) break;
      if (e.name === el.name && sameAttribs(e.attribs, el.attribs)) {
        count++;
        earliest = i;
      }
    }
    if (count >= 3) afe.splice(earliest, 1);
    afe.push(el);
  }

  /** A copy of an element's attributes for the adoption agency's new element. */
  private copyAttribs(attribs: Attribs): Attribs {
    const copy = { ...attribs };
    if (hasOnName(copy)) this.onAttribs.push(copy);
    return copy;
  }

  private clearFormattingToMarker(): void {
    while (this.afe.length > 0) if (this.afe.pop() === null) return;
  }

  private mergeAttribs(el: Element | undefined, attribs: Attribs): void {
    if (el === undefined) return;
    for (const k of Object.keys(attribs)) if (!(k in el.attribs)) el.attribs[k] = attribs[k] as string;
    if (hasOnName(attribs)) this.onAttribs.push(el.attribs);
  }

  private chars(data: string): void {
    if (this.skipLf) {
      this.skipLf = false;
      if (data.charCodeAt(0) === 10) data = data.slice(1);
      if (data === '') return;
    }
    const cur = this.current;
    if (cur !== undefined && cur.namespace === NS_SVG && !SVG_INTEGRATION.has(cur.name)) {
      this.insertText(data);
      return;
    }
    switch (this.mode) {
      case Mode.Initial:
      case Mode.BeforeHtml:
      case Mode.BeforeHead:
      case Mode.InHead:
      case Mode.AfterHead:
      case Mode.InColGroup: {
        let ws = 0;
        while (ws < data.length && isSpace(data.charCodeAt(ws))) ws++;
        if (ws > 0 && this.mode >= Mode.InHead) this.insertText(data.slice(0, ws));
        if (ws === data.length) return;
        this.anythingElseBeforeBody();
        this.chars(data.slice(ws));
        return;
      }
      case Mode.InTable:
      case Mode.InTableBody:
      case Mode.InRow:
        if (!TABLE_TEXT_PARENT.has(this.currentName)) throw new Unsupported('table text');
        for (let k = 0; k < data.length; k++) if (!isSpace(data.charCodeAt(k))) throw new Unsupported('foster text');
        this.insertText(data);
        return;
      case Mode.InSelect:
      case Mode.InSelectInTable:
        this.insertText(data);
        return;
      case Mode.AfterBody:
      case Mode.AfterAfterBody: {
        let allSpace = true;
        for (let k = 0; k < data.length; k++) if (!isSpace(data.charCodeAt(k))) allSpace = false;
        if (!allSpace) this.mode = Mode.InBody;
        this.reconstruct();
        this.insertText(data);
        return;
      }
      default:
        this.reconstruct();
        this.insertText(data);
    }
  }

  /** The "anything else" step of the modes before body (and column group), towards in-body. */
  private anythingElseBeforeBody(): void {
    switch (this.mode) {
      case Mode.Initial:
        this.mode = Mode.BeforeHtml;
        return;
      case Mode.BeforeHtml:
        this.insert('html', newAttribs());
        this.mode = Mode.BeforeHead;
        return;
      case Mode.BeforeHead:
        this.head = this.insert('head', newAttribs());
        this.mode = Mode.InHead;
        return;
      case Mode.InHead:
        this.pop();
        this.mode = Mode.AfterHead;
        return;
      case Mode.AfterHead:
        this.insert('body', newAttribs());
        this.mode = Mode.InBody;
        return;
      case Mode.InColGroup:
        if (this.currentName !== 'colgroup') throw new Unsupported('colgroup');
        this.pop();
        this.mode = Mode.InTable;
        return;
      default:
        throw new Unsupported('mode');
    }
  }

  private eof(): void {
    for (;;) {
      while (this.mode < Mode.InBody) this.anythingElseBeforeBody();
      if (this.templateModes.length === 0 || this.names.lastIndexOf('template') < 0) return;
      this.popUntil('template');
      this.clearFormattingToMarker();
      this.templateModes.pop();
      this.resetMode();
    }
  }

  private insertTemplate(attribs: Attribs, parent: ParentNode): void {
    const el = makeElement('template', attribs);
    appendNode(el, new Document([]));
    appendNode(parent, el);
    if (this.collect?.names.has('template') === true) this.collectInserted(el);
    if (this.open.length >= this.maxDepth) throw new Unsupported(TOO_DEEP);
    this.open.push(el);
    this.names.push('template');
    this.afe.push(null);
    this.mode = Mode.InTemplate;
    this.templateModes.push(Mode.InTemplate);
  }

  private endTemplate(): void {
    if (this.names.lastIndexOf('template') < 0) return;
    while (TEMPLATE_IMPLIED_END.has(this.currentName)) this.pop();
    this.popUntil('template');
    this.clearFormattingToMarker();
    this.templateModes.pop();
    this.resetMode();
  }

  private startInTemplate(name: string, attribs: Attribs): void {
    if (HEAD_CONTENT.has(name)) return this.headContent(name, attribs, this.parentForInsert());
    const next = TEMPLATE_TABLE.has(name) ? Mode.InTable : name === 'col' ? Mode.InColGroup : name === 'tr'
      ? Mode.InTableBody : CELLS.has(name) ? Mode.InRow : Mode.InBody;
    this.templateModes[this.templateModes.length - 1] = next;
    this.mode = next;
    this.startTag(name, attribs);
  }

  private resetMode(): void {
    for (let i = this.names.length - 1; i >= 0; i--) {
      const nm = this.names[i] as string;
      const last = i === 0;
      if (CELLS.has(nm) && !last) return void (this.mode = Mode.InCell);
      if (nm === 'tr') return void (this.mode = Mode.InRow);
      if (TABLE_SECTIONS.has(nm)) return void (this.mode = Mode.InTableBody);
      if (nm === 'caption') return void (this.mode = Mode.InCaption);
      if (nm === 'colgroup') return void (this.mode = Mode.InColGroup);
      if (nm === 'table') return void (this.mode = Mode.InTable);
      if (nm === 'body') return void (this.mode = Mode.InBody);
      if (nm === 'select' && !last) {
        for (let k = i - 1; k > 0; k--) {
          const up = this.names[k] as string;
          if (up === 'template') break;
          if (up === 'table') return void (this.mode = Mode.InSelectInTable);
        }
        return void (this.mode = Mode.InSelect);
      }
      if (nm === 'template') return void (this.mode = this.templateModes[this.templateModes.length - 1] as Mode);
      if (nm === 'head' && !last) return void (this.mode = Mode.InHead);
      if (nm === 'select' || nm === 'frameset' || nm === 'head') throw new Unsupported('reset mode');
      if (nm === 'html') {
        this.mode = this.head === null ? Mode.BeforeHead : Mode.AfterHead;
        return;
      }
    }
    this.mode = Mode.InBody;
  }

  private startTag(name: string, attribs: Attribs): void {
    this.skipLf = false;
    if (BAIL_START.has(name)) throw new Unsupported(`<${name}>`);
    if (this.templateModes.length > 0 && (name === 'html' || name === 'body' || name === 'form')) {
      if (this.names.lastIndexOf('template') < 0) throw new Unsupported('template');
      if (name !== 'form') return;
      // With a template open: the form pointer is neither checked nor set.
      if (this.mode === Mode.InTemplate) {
        this.mode = Mode.InBody;
        this.templateModes[this.templateModes.length - 1] = Mode.InBody;
      }
      if (this.mode !== Mode.InBody && this.mode !== Mode.InCell && this.mode !== Mode.InCaption) throw new Unsupported('template');
      this.closePIfInButtonScope();
      this.insert(name, attribs);
      return;
    }
    switch (this.mode) {
      case Mode.InTemplate:
        return this.startInTemplate(name, attribs);
      case Mode.Initial:
        this.mode = Mode.BeforeHtml;
        return this.startTag(name, attribs);
      case Mode.BeforeHtml:
        if (name === 'html') {
          this.insert('html', attribs);
          this.mode = Mode.BeforeHead;
          return;
        }
        this.anythingElseBeforeBody();
        return this.startTag(name, attribs);
      case Mode.BeforeHead:
        if (name === 'html') return this.mergeAttribs(this.open[0], attribs);
        if (name === 'head') {
          this.head = this.insert('head', attribs);
          this.mode = Mode.InHead;
          return;
        }
        this.anythingElseBeforeBody();
        return this.startTag(name, attribs);
      case Mode.InHead:
        if (name === 'html') return this.mergeAttribs(this.open[0], attribs);
        if (name === 'head') return;
        if (name === 'noscript') return this.insertRaw(name, attribs);
        if (HEAD_CONTENT.has(name)) return this.headContent(name, attribs, this.parentForInsert());
        this.anythingElseBeforeBody();
        return this.startTag(name, attribs);
      case Mode.AfterHead:
        if (name === 'html') return this.mergeAttribs(this.open[0], attribs);
        if (name === 'body') {
          this.insert('body', attribs);
          this.mode = Mode.InBody;
          return;
        }
        if (name === 'head') return;
        if (HEAD_CONTENT.has(name)) return this.headContent(name, attribs, this.head as Element);
        this.anythingElseBeforeBody();
        return this.startTag(name, attribs);
      case Mode.InTable:
        return this.startInTable(name, attribs);
      case Mode.InTableBody:
        return this.startInTableBody(name, attribs);
      case Mode.InRow:
        return this.startInRow(name, attribs);
      case Mode.InCell:
        if (CELL_EXIT.has(name)) {
          if (!this.anyInScope(CELLS, TABLE_SCOPE)) throw new Unsupported('cell exit');
          this.closeCell();
          return this.startTag(name, attribs);
        }
        return this.startInBody(name, attribs);
      case Mode.InCaption:
        if (CELL_EXIT.has(name)) {
          this.closeCaption();
          return this.startTag(name, attribs);
        }
        return this.startInBody(name, attribs);
      case Mode.InColGroup:
        if (name === 'col') return this.insertVoid(name, attribs);
        if (name === 'template') return this.headContent(name, attribs, this.parentForInsert());
        if (name === 'html') return this.mergeAttribs(this.open[0], attribs);
        this.anythingElseBeforeBody();
        return this.startTag(name, attribs);
      case Mode.AfterBody:
      case Mode.AfterAfterBody:
        if (name === 'html') return this.mergeAttribs(this.open[0], attribs);
        this.mode = Mode.InBody;
        return this.startInBody(name, attribs);
      case Mode.InSelectInTable:
        if (SELECT_TABLE_EXIT.has(name)) {
          this.popUntil('select');
          this.resetMode();
          return this.startTag(name, attribs);
        }
        return this.startInSelect(name, attribs);
      case Mode.InSelect:
        return this.startInSelect(name, attribs);
      default:
        return this.startInBody(name, attribs);
    }
  }

  private inSelectScope(): boolean {
    for (let i = this.names.length - 1; i >= 0; i--) {
      const nm = this.names[i] as string;
      if (nm === 'select') return true;
      if (nm !== 'option' && nm !== 'optgroup') return false;
    }
    return false;
  }

  private startInSelect(name: string, attribs: Attribs): void {
    switch (name) {
      case 'html':
        return this.mergeAttribs(this.open[0], attribs);
      case 'option':
        if (this.currentName === 'option') this.pop();
        this.insert(name, attribs);
        return;
      case 'optgroup': case 'hr':
        if (this.currentName === 'option') this.pop();
        if (this.currentName === 'optgroup') this.pop();
        if (name === 'hr') this.insertVoid(name, attribs);
        else this.insert(name, attribs);
        return;
      case 'input': case 'keygen': case 'textarea': case 'select':
        if (!this.inSelectScope()) return;
        this.popUntil('select');
        this.resetMode();
        if (name !== 'select') this.startTag(name, attribs);
        return;
      case 'script': case 'template':
        return this.headContent(name, attribs, this.parentForInsert());
      default:
    }
  }

  private endInSelect(name: string): void {
    switch (name) {
      case 'optgroup':
        if (this.currentName === 'option' && this.names[this.names.length - 2] === 'optgroup') this.pop();
        if (this.currentName === 'optgroup') this.pop();
        return;
      case 'option':
        if (this.currentName === 'option') this.pop();
        return;
      case 'select':
        if (!this.inSelectScope()) return;
        this.popUntil('select');
        this.resetMode();
        return;
      case 'template':
        throw new Unsupported('template');
      default:
    }
  }

  private headContent(name: string, attribs: Attribs, parent: ParentNode): void {
    if (name === 'template') return this.insertTemplate(attribs, parent);
    if (VOID_IN_HEAD.has(name)) {
      const el = makeElement(name, attribs);
      appendNode(parent, el);
      if (this.collect?.names.has(name) === true) this.collectInserted(el);
    } else {
      this.insertRaw(name, attribs, parent);
    }
  }

  private startInBody(name: string, attribs: Attribs): void {
    // One lookup sends the common tags to their rule; the rest go through the checks in order.
    switch (BODY_START.get(name) ?? Start.Ordinary) {
      case Start.Ordinary:
        this.reconstruct();
        this.insert(name, attribs);
        return;
      case Start.ClosesP:
        this.closePIfInButtonScope();
        this.insert(name, attribs);
        return;
      case Start.VoidReconstruct:
        this.reconstruct();
        this.insertVoid(name, attribs);
        return;
      default:
        return this.startInBodyOther(name, attribs);
    }
  }

  private startInBodyOther(name: string, attribs: Attribs): void {
    if (FORMATTING.has(name)) {
      this.reconstruct();
      this.pushFormatting(this.insert(name, attribs));
      return;
    }
    if (CLOSES_P.has(name)) {
      this.closePIfInButtonScope();
      this.insert(name, attribs);
      return;
    }
    if (HEAD_CONTENT.has(name)) return this.headContent(name, attribs, this.parentForInsert());
    if (VOID_RECONSTRUCT.has(name)) {
      this.reconstruct();
      this.insertVoid(name, attribs);
      return;
    }
    if (IGNORED_IN_BODY.has(name)) return;
    switch (name) {
      case 'a':
        for (let i = this.afe.length - 1; i >= 0; i--) {
          const e = this.afe[i];
          if (e === null || e === undefined) break;
          if (e.name === 'a') {
            this.adoptionAgency('a');
            const afeAt = this.afe.lastIndexOf(e);
            if (afeAt >= 0) this.afe.splice(afeAt, 1);
            if (this.open.lastIndexOf(e) >= 0) throw new Unsupported('a in a');
            break;
          }
        }
        this.reconstruct();
        this.pushFormatting(this.insert(name, attribs));
        return;
      case 'image':
        return this.startInBody('img', attribs);
      case 'rb': case 'rtc':
        if (this.inScope('ruby', SCOPE)) this.impliedEnd();
        this.insert(name, attribs);
        return;
      case 'rp': case 'rt':
        if (this.inScope('ruby', SCOPE)) this.impliedEnd('rtc');
        this.insert(name, attribs);
        return;
      case 'nobr':
        this.reconstruct();
        if (this.inScope('nobr', SCOPE)) {
          this.adoptionAgency('nobr');
          this.reconstruct();
        }
        this.pushFormatting(this.insert(name, attribs));
        return;
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6':
        this.closePIfInButtonScope();
        if (HEADINGS.has(this.currentName)) this.pop();
        this.insert(name, attribs);
        return;
      case 'pre': case 'listing':
        this.closePIfInButtonScope();
        this.insert(name, attribs);
        this.skipLf = true;
        return;
      case 'form':
        if (this.form !== null) return;
        this.closePIfInButtonScope();
        this.form = this.insert(name, attribs);
        return;
      case 'li':
        for (let i = this.names.length - 1; i >= 0; i--) {
          const nm = this.names[i] as string;
          if (nm === 'li') {
            this.impliedEnd('li');
            this.popUntil('li');
            break;
          }
          if (SPECIAL.has(nm) && nm !== 'address' && nm !== 'div' && nm !== 'p') break;
        }
        this.closePIfInButtonScope();
        this.insert(name, attribs);
        return;
      case 'dd': case 'dt':
        for (let i = this.names.length - 1; i >= 0; i--) {
          const nm = this.names[i] as string;
          if (nm === 'dd' || nm === 'dt') {
            this.impliedEnd(nm);
            this.popUntil(nm);
            break;
          }
          if (SPECIAL.has(nm) && nm !== 'address' && nm !== 'div' && nm !== 'p') break;
        }
        this.closePIfInButtonScope();
        this.insert(name, attribs);
        return;
      case 'button':
        if (this.inScope('button', SCOPE)) {
          this.impliedEnd();
          this.popUntil('button');
        }
        this.reconstruct();
        this.insert(name, attribs);
        return;
      case 'applet': case 'marquee': case 'object':
        this.reconstruct();
        this.insert(name, attribs);
        this.afe.push(null);
        return;
      case 'table':
        if (!this.quirks) this.closePIfInButtonScope();
        this.insert(name, attribs);
        this.mode = Mode.InTable;
        return;
      case 'input':
        this.reconstruct();
        this.insertVoid(name, attribs);
        return;
      case 'param': case 'source': case 'track':
        this.insertVoid(name, attribs);
        return;
      case 'hr':
        this.closePIfInButtonScope();
        this.insertVoid(name, attribs);
        return;
      case 'textarea':
        this.insertRaw(name, attribs);
        return;
      case 'xmp':
        this.closePIfInButtonScope();
        this.reconstruct();
        this.insertRaw(name, attribs);
        return;
      case 'optgroup': case 'option':
        if (this.currentName === 'option') this.pop();
        this.reconstruct();
        this.insert(name, attribs);
        return;
      case 'select': {
        const inTable = this.mode === Mode.InTable || this.mode === Mode.InCaption || this.mode === Mode.InTableBody
          || this.mode === Mode.InRow || this.mode === Mode.InCell;
        this.reconstruct();
        this.insert(name, attribs);
        this.mode = inTable ? Mode.InSelectInTable : Mode.InSelect;
        return;
      }
      case 'html':
        return this.mergeAttribs(this.open[0], attribs);
      case 'body':
        if (this.names[1] !== 'body') return;
        return this.mergeAttribs(this.open[1], attribs);
      default:
        if (RAW_TEXT.has(name)) return this.insertRaw(name, attribs);
        this.reconstruct();
        this.insert(name, attribs);
    }
  }

  private startInTable(name: string, attribs: Attribs): void {
    switch (name) {
      case 'caption':
        this.clearBackTo(TABLE_CONTEXT);
        this.afe.push(null);
        this.insert(name, attribs);
        this.mode = Mode.InCaption;
        return;
      case 'colgroup':
        this.clearBackTo(TABLE_CONTEXT);
        this.insert(name, attribs);
        this.mode = Mode.InColGroup;
        return;
      case 'col':
        this.clearBackTo(TABLE_CONTEXT);
        this.insert('colgroup', newAttribs());
        this.mode = Mode.InColGroup;
        return this.startTag(name, attribs);
      case 'tbody': case 'tfoot': case 'thead':
        this.clearBackTo(TABLE_CONTEXT);
        this.insert(name, attribs);
        this.mode = Mode.InTableBody;
        return;
      case 'td': case 'th': case 'tr':
        this.clearBackTo(TABLE_CONTEXT);
        this.insert('tbody', newAttribs());
        this.mode = Mode.InTableBody;
        return this.startTag(name, attribs);
      case 'style': case 'script': case 'template':
        return this.headContent(name, attribs, this.parentForInsert());
      case 'input':
        if ((attribs['type'] ?? '').toLowerCase() !== 'hidden') throw new Unsupported('foster input');
        this.insertVoid(name, attribs);
        return;
      default:
        throw new Unsupported(`foster <${name}>`);
    }
  }

  private startInTableBody(name: string, attribs: Attribs): void {
    if (name === 'tr') {
      this.clearBackTo(TBODY_CONTEXT);
      this.insert(name, attribs);
      this.mode = Mode.InRow;
      return;
    }
    if (CELLS.has(name)) {
      this.clearBackTo(TBODY_CONTEXT);
      this.insert('tr', newAttribs());
      this.mode = Mode.InRow;
      return this.startTag(name, attribs);
    }
    if (TABLE_BODY_EXIT.has(name)) {
      if (!this.anyInScope(TABLE_SECTIONS, TABLE_SCOPE)) return;
      this.clearBackTo(TBODY_CONTEXT);
      this.pop();
      this.mode = Mode.InTable;
      return this.startTag(name, attribs);
    }
    return this.startInTable(name, attribs);
  }

  private startInRow(name: string, attribs: Attribs): void {
    if (CELLS.has(name)) {
      this.clearBackTo(ROW_CONTEXT);
      this.insert(name, attribs);
      this.mode = Mode.InCell;
      this.afe.push(null);
      return;
    }
    if (TABLE_BODY_EXIT.has(name) || name === 'tr') {
      if (!this.inScope('tr', TABLE_SCOPE)) return;
      this.clearBackTo(ROW_CONTEXT);
      this.pop();
      this.mode = Mode.InTableBody;
      return this.startTag(name, attribs);
    }
    return this.startInTable(name, attribs);
  }

  private closeCell(): void {
    this.impliedEnd();
    this.popUntilOneOf(CELLS);
    this.clearFormattingToMarker();
    this.mode = Mode.InRow;
  }

  private closeCaption(): void {
    if (!this.inScope('caption', TABLE_SCOPE)) throw new Unsupported('caption');
    this.impliedEnd();
    this.popUntil('caption');
    this.clearFormattingToMarker();
    this.mode = Mode.InTable;
  }

  private endTag(name: string): void {
    this.skipLf = false;
    if (name === 'template' && this.mode > Mode.BeforeHead) {
      if (this.mode === Mode.AfterBody || this.mode === Mode.AfterAfterBody) this.mode = Mode.InBody;
      return this.endTemplate();
    }
    if (name === 'form' && this.templateModes.length > 0) {
      if (this.names.lastIndexOf('template') < 0) throw new Unsupported('template');
      if (this.mode !== Mode.InBody && this.mode !== Mode.InCell && this.mode !== Mode.InCaption) {
        if (this.mode === Mode.InTemplate) return;
        throw new Unsupported('template');
      }
      if (!this.inScope('form', SCOPE)) return;
      this.impliedEnd();
      this.popUntil('form');
      return;
    }
    switch (this.mode) {
      case Mode.InTemplate:
        return;
      case Mode.Initial:
        this.mode = Mode.BeforeHtml;
        return this.endTag(name);
      case Mode.BeforeHtml:
      case Mode.BeforeHead:
      case Mode.InHead:
      case Mode.AfterHead:
        if (name === 'head' && this.mode === Mode.InHead) {
          this.pop();
          this.mode = Mode.AfterHead;
          return;
        }
        if (name !== 'body' && name !== 'html' && name !== 'br' && !(name === 'head' && this.mode < Mode.InHead)) return;
        this.anythingElseBeforeBody();
        return this.endTag(name);
      case Mode.InTable:
        if (name === 'table') return this.endTable();
        return this.endInTable(name);
      case Mode.InTableBody:
        if (TABLE_SECTIONS.has(name)) {
          if (!this.inScope(name, TABLE_SCOPE)) return;
          this.clearBackTo(TBODY_CONTEXT);
          this.pop();
          this.mode = Mode.InTable;
          return;
        }
        if (name === 'table') {
          if (!this.anyInScope(TABLE_SECTIONS, TABLE_SCOPE)) return;
          this.clearBackTo(TBODY_CONTEXT);
          this.pop();
          this.mode = Mode.InTable;
          return this.endTag(name);
        }
        return this.endInTable(name);
      case Mode.InRow:
        if (name === 'tr' || name === 'table' || TABLE_SECTIONS.has(name)) {
          if (TABLE_SECTIONS.has(name) && !this.inScope(name, TABLE_SCOPE)) return;
          if (!this.inScope('tr', TABLE_SCOPE)) return;
          this.clearBackTo(ROW_CONTEXT);
          this.pop();
          this.mode = Mode.InTableBody;
          if (name !== 'tr') this.endTag(name);
          return;
        }
        return this.endInTable(name);
      case Mode.InCell:
        if (CELLS.has(name)) {
          if (!this.inScope(name, TABLE_SCOPE)) return;
          this.impliedEnd();
          this.popUntil(name);
          this.clearFormattingToMarker();
          this.mode = Mode.InRow;
          return;
        }
        if (name === 'body' || name === 'caption' || name === 'col' || name === 'colgroup' || name === 'html') return;
        if (name === 'table' || name === 'tr' || TABLE_SECTIONS.has(name)) {
          if (!this.inScope(name, TABLE_SCOPE)) return;
          this.closeCell();
          return this.endTag(name);
        }
        return this.endInBody(name);
      case Mode.InCaption:
        if (name === 'caption') return this.closeCaption();
        if (name === 'table') {
          this.closeCaption();
          return this.endTag(name);
        }
        if (IN_TABLE_IGNORED_END.has(name) && name !== 'caption') return;
        return this.endInBody(name);
      case Mode.InColGroup:
        if (name === 'colgroup') {
          if (this.currentName !== 'colgroup') return;
          this.pop();
          this.mode = Mode.InTable;
          return;
        }
        if (name === 'col') return;
        this.anythingElseBeforeBody();
        return this.endTag(name);
      case Mode.AfterBody:
        if (name === 'html') {
          this.mode = Mode.AfterAfterBody;
          return;
        }
        this.mode = Mode.InBody;
        return this.endInBody(name);
      case Mode.AfterAfterBody:
        this.mode = Mode.InBody;
        return this.endInBody(name);
      case Mode.InSelectInTable:
        if (SELECT_TABLE_EXIT.has(name)) {
          if (!this.inScope(name, TABLE_SCOPE)) return;
          this.popUntil('select');
          this.resetMode();
          return this.endTag(name);
        }
        return this.endInSelect(name);
      case Mode.InSelect:
        return this.endInSelect(name);
      default:
        return this.endInBody(name);
    }
  }

  /** End tags the table modes hand to the in-body rules (with foster parenting, which only p and br need). */
  private endInTable(name: string): void {
    if (IN_TABLE_IGNORED_END.has(name)) return;
    if (name === 'p' || name === 'br') throw new Unsupported(`foster </${name}>`);
    this.endInBody(name);
  }

  private endTable(): void {
    if (!this.inScope('table', TABLE_SCOPE)) return;
    this.popUntil('table');
    this.resetMode();
  }

  private endInBody(name: string): void {
    const kind = BODY_END.get(name);
    if (kind === undefined) return this.anyOtherEnd(name);
    if (kind === End.Block) {
      if (!this.inScope(name, SCOPE)) return;
      this.impliedEnd();
      this.popUntil(name);
      return;
    }
    if (kind === End.Formatting) return this.adoptionAgency(name);
    switch (name) {
      case 'body':
        if (!this.inScope('body', SCOPE)) return;
        this.mode = Mode.AfterBody;
        return;
      case 'html':
        if (!this.inScope('body', SCOPE)) return;
        this.mode = Mode.AfterAfterBody;
        return;
      case 'p':
        if (this.openP === 0 || !this.inScope('p', BUTTON_SCOPE)) this.insert('p', newAttribs());
        this.impliedEnd('p');
        this.popUntil('p');
        return;
      case 'li':
        if (!this.inScope('li', LIST_SCOPE)) return;
        this.impliedEnd('li');
        this.popUntil('li');
        return;
      case 'dd': case 'dt':
        if (!this.inScope(name, SCOPE)) return;
        this.impliedEnd(name);
        this.popUntil(name);
        return;
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6':
        if (!this.anyInScope(HEADINGS, SCOPE)) return;
        this.impliedEnd();
        this.popUntilOneOf(HEADINGS);
        return;
      case 'form': {
        const node = this.form;
        this.form = null;
        if (node === null || this.open.lastIndexOf(node) < 0 || !this.inScope('form', SCOPE)) return;
        this.impliedEnd();
        const at = this.open.lastIndexOf(node);
        this.open.splice(at, 1);
        this.names.splice(at, 1);
        return;
      }
      case 'applet': case 'marquee': case 'object':
        if (!this.inScope(name, SCOPE)) return;
        this.impliedEnd();
        this.popUntil(name);
        this.clearFormattingToMarker();
        return;
      case 'br':
        this.reconstruct();
        this.insertVoid('br', newAttribs());
        return;
      case 'template': case 'frameset':
        throw new Unsupported(`</${name}>`);
      default:
        return this.anyOtherEnd(name);
    }
  }

  private anyOtherEnd(name: string): void {
    for (let i = this.names.length - 1; i >= 0; i--) {
      const nm = this.names[i] as string;
      if (nm === name) {
        this.impliedEnd(name);
        while (this.names.length > i) this.pop();
        return;
      }
      if (SPECIAL.has(nm)) return;
    }
  }

  /** The standard's adoption agency algorithm for the end tag `name` of a formatting element. */
  private adoptionAgency(name: string): void {
    const cur = this.current;
    if (this.currentName === name && cur !== undefined && this.afe.lastIndexOf(cur) < 0) {
      this.pop();
      return;
    }
    for (let outer = 0; outer < 8; outer++) {
      let at = -1;
      for (let i = this.afe.length - 1; i >= 0; i--) {
        const e = this.afe[i];
        if (e === null || e === undefined) break;
        if (e.name === name) {
          at = i;
          break;
        }
      }
      if (at < 0) return this.anyOtherEnd(name);
      const fe = this.afe[at] as Element;
      const feAt = this.open.lastIndexOf(fe);
      if (feAt < 0) {
        this.afe.splice(at, 1);
        return;
      }
      for (let i = this.names.length - 1; i > feAt; i--) if (SCOPE.has(this.names[i] as string)) return;
      let fbAt = -1;
      for (let i = feAt + 1; i < this.names.length; i++) {
        if (SPECIAL.has(this.names[i] as string)) {
          fbAt = i;
          break;
        }
      }
      if (fbAt < 0) {
        while (this.open.length > feAt) this.pop();
        this.afe.splice(at, 1);
        return;
      }
      const furthest = this.open[fbAt] as Element;
      const common = this.open[feAt - 1] as Element;
      this.moved = true;
      let bookmark: Element = fe;
      let lastNode: Element = furthest;
      let nodeAt = fbAt;
      for (let inner = 1; ; inner++) {
        nodeAt--;
        let node = this.open[nodeAt] as Element;
        if (node === fe) break;
        let nodeAfe = this.afe.indexOf(node);
        if (inner > 3 && nodeAfe >= 0) {
          this.afe.splice(nodeAfe, 1);
          nodeAfe = -1;
        }
        if (nodeAfe < 0) {
          this.open.splice(nodeAt, 1);
          this.names.splice(nodeAt, 1);
          continue;
        }
        const copy = makeElement(node.name, this.copyAttribs(node.attribs));
        this.afe[nodeAfe] = copy;
        this.open[nodeAt] = copy;
        node = copy;
        if (lastNode === furthest) bookmark = copy;
        detach(lastNode);
        appendNode(node, lastNode);
        lastNode = node;
      }
      if (TABLE_TEXT_PARENT.has(common.name) || common.name === 'template') throw new Unsupported('adoption agency foster');
      detach(lastNode);
      appendNode(common, lastNode);
      const copy = makeElement(fe.name, this.copyAttribs(fe.attribs));
      const moved = furthest.children.splice(0);
      for (const child of moved) {
        child.prev = null;
        child.next = null;
        appendNode(copy, child);
      }
      appendNode(furthest, copy);
      const bm = this.afe.indexOf(bookmark);
      this.afe.splice(bm + 1, 0, copy);
      this.afe.splice(this.afe.indexOf(fe), 1);
      const feNow = this.open.indexOf(fe);
      this.open.splice(feNow, 1);
      this.names.splice(feNow, 1);
      const fbNow = this.open.indexOf(furthest);
      this.open.splice(fbNow + 1, 0, copy);
      this.names.splice(fbNow + 1, 0, copy.name);
    }
  }
}

/** The reason {@link buildStandardDom} gives when the page nests deeper than its `maxDepth`. */
export const TOO_DEEP = 'too deep';

/** The result of {@link buildStandardDom}: the tree, or null with the construct that stopped it. */
export interface StandardDomResult {
  readonly doc: Document | null;
  readonly unsupported: string | null;
  /** With a tree: every attribute map with an `on*` attribute (a superset of the tree's, see cleanHtml). */
  readonly onAttribs?: readonly Record<string, string>[];
  /**
   * With a tree and `collect`: the wanted elements in document order, as collectElements would find them;
   * undefined when the builder moved nodes (then walk the tree).
   */
  readonly collected?: Element[];
}

/**
 * Builds the HTML standard's tree (parse5's, node for node) for markup within the fast builder's rules;
 * returns `doc: null` and the reason where they stop.
 */
export function buildStandardDom(
  input: string,
  maxDepth = Number.POSITIVE_INFINITY,
  collect?: CollectElements,
): StandardDomResult {
  if (input.includes('\0') || input.charCodeAt(0) === 0xfeff) return { doc: null, unsupported: 'nul or bom' };
  const html = input.includes('\r') ? input.replace(/\r\n?/g, '\n') : input;
  try {
    const builder = new StandardBuilder(html, maxDepth, collect);
    const doc = builder.build();
    const collected = collect === undefined || builder.moved ? undefined : builder.collected;
    return { doc, unsupported: null, onAttribs: builder.onAttribs, collected };
  } catch (e) {
    if (e instanceof Unsupported) return { doc: null, unsupported: e.reason };
    throw e;
  }
}
