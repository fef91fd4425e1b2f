import { escapeHtml, safeHref } from './html-text.js';

/** Formatting of a run of text. */
export interface RunFormat {
  bold?: boolean;
  italic?: boolean;
  /** Monospace run (`<code>`). */
  code?: boolean;
  /** Link target; only safe targets (see `safeHref`) become links. */
  href?: string;
  /** Superscript or subscript. */
  vertAlign?: 'sup' | 'sub';
}

type Slot = 'a' | 'strong' | 'em' | 'code' | 'sup' | 'sub';

/** Nesting order of the tags, outermost first. */
function wanted(fmt: RunFormat): { slot: Slot; open: string }[] {
  const tags: { slot: Slot; open: string }[] = [];
  const href = safeHref(fmt.href);
  if (href !== undefined) tags.push({ slot: 'a', open: `<a href="${escapeHtml(href)}">` });
  if (fmt.bold) tags.push({ slot: 'strong', open: '<strong>' });
  if (fmt.italic) tags.push({ slot: 'em', open: '<em>' });
  if (fmt.code) tags.push({ slot: 'code', open: '<code>' });
  if (fmt.vertAlign) tags.push({ slot: fmt.vertAlign, open: `<${fmt.vertAlign}>` });
  return tags;
}

/**
 * Builds the inline HTML of one paragraph from runs of text. Adjacent runs with the same formatting
 * share one tag (Word splits runs at every edit), and whitespace-only runs never toggle formatting, so
 * the markdown converter sees `**bold words**` rather than `**bold** ** **words**`.
 */
export class InlineBuilder {
  #out: string[] = [];
  #open: { slot: Slot; open: string }[] = [];
  #text = '';

  /** Appends text with a format (tabs and newlines are written as spaces). */
  text(text: string, fmt: RunFormat = {}): void {
    if (text === '') return;
    if (text.trim() !== '') this.#format(wanted(fmt));
    this.#out.push(escapeHtml(text.replace(/[\t\r\n]/g, ' ')));
    this.#text += text;
  }

  /** Appends a line break. */
  lineBreak(): void {
    this.#out.push('<br>');
    this.#text += '\n';
  }

  /** Appends already-built inline HTML (a footnote marker) outside any formatting. */
  raw(html: string, plain: string): void {
    this.#format([]);
    this.#out.push(html);
    this.#text += plain;
  }

  /** The plain text appended so far. */
  plainText(): string {
    return this.#text;
  }

  /** True when nothing but whitespace was appended. */
  isBlank(): boolean {
    return this.#text.trim() === '';
  }

  /** The HTML, with every tag closed and outer whitespace trimmed; the builder is reset. */
  finish(): string {
    this.#format([]);
    const html = this.#out.join('').replace(/^(?:\s|<br>)+|(?:\s|<br>)+$/g, '');
    this.#out = [];
    this.#text = '';
    return html;
  }

  #format(tags: { slot: Slot; open: string }[]): void {
    let same = 0;
    while (same < this.#open.length && same < tags.length && this.#open[same]?.open === tags[same]?.open) same++;
    for (let i = this.#open.length - 1; i >= same; i--) this.#out.push(`</${this.#open[i]?.slot}>`);
    for (let i = same; i < tags.length; i++) this.#out.push(tags[i]?.open ?? '');
    this.#open = tags;
  }
}
