import type { XmlTag } from './xml-stream.js';
import { attr } from './xml-stream.js';

interface OdfStyle {
  parent?: string;
  displayName?: string;
  bold?: boolean;
  italic?: boolean;
  /** Tables: `table:display="false"` hides a sheet. */
  hidden?: boolean;
}

const MAX_PARENTS = 16;
const CODE_STYLE = /preformatted|source[ _]text|\bcode\b/i;

/**
 * The ODF styles that matter for HTML: bold/italic text styles, paragraph styles that mean title or
 * code, list styles (bullet or number per level) and hidden tables. Fed from `styles.xml` and the
 * automatic styles at the top of `content.xml`, tag by tag, as the parser meets them.
 */
export class OdfStyles {
  readonly #styles = new Map<string, OdfStyle>();
  readonly #lists = new Map<string, Map<number, boolean>>();
  #style?: OdfStyle;
  #list?: Map<number, boolean>;

  /** Consumes a start tag if it belongs to a style definition; true when it did. */
  open(tag: XmlTag): boolean {
    switch (tag.local) {
      case 'style': {
        if (!tag.uri.endsWith(':style:1.0')) return false;
        const name = attr(tag, 'name');
        this.#style = { parent: attr(tag, 'parent-style-name'), displayName: attr(tag, 'display-name') };
        if (name !== undefined) this.#styles.set(name, this.#style);
        return true;
      }
      case 'text-properties': {
        if (!this.#style) return false;
        const weight = attr(tag, 'font-weight');
        const style = attr(tag, 'font-style');
        if (weight !== undefined) this.#style.bold = weight === 'bold' || Number(weight) >= 600;
        if (style !== undefined) this.#style.italic = style === 'italic' || style === 'oblique';
        return true;
      }
      case 'table-properties':
        if (this.#style && attr(tag, 'display') === 'false') this.#style.hidden = true;
        return this.#style !== undefined;
      case 'list-style': {
        const name = attr(tag, 'name');
        this.#list = new Map();
        if (name !== undefined) this.#lists.set(name, this.#list);
        return true;
      }
      case 'list-level-style-number': case 'list-level-style-bullet': case 'list-level-style-image':
        this.#list?.set(Number(attr(tag, 'level') ?? 1) || 1, tag.local === 'list-level-style-number');
        return this.#list !== undefined;
    }
    return false;
  }

  close(tag: XmlTag): void {
    if (tag.local === 'style') this.#style = undefined;
    else if (tag.local === 'list-style') this.#list = undefined;
  }

  /** Bold/italic of a text or paragraph style, following parents. */
  format(name: string | undefined): { bold?: boolean; italic?: boolean } {
    let bold: boolean | undefined;
    let italic: boolean | undefined;
    for (let n = name, i = 0; n !== undefined && i < MAX_PARENTS; i++) {
      const s = this.#styles.get(n);
      bold ??= s?.bold;
      italic ??= s?.italic;
      n = s?.parent;
    }
    return { bold, italic };
  }

  /** `title` (Title), `code` (Preformatted Text...) or undefined, following parents. */
  paragraphRole(name: string | undefined): 'title' | 'code' | undefined {
    for (let n = name, i = 0; n !== undefined && i < MAX_PARENTS; i++) {
      const s = this.#styles.get(n);
      const label = s?.displayName ?? n.replace(/_20_/g, ' ');
      if (/^title$/i.test(label)) return 'title';
      if (CODE_STYLE.test(label)) return 'code';
      n = s?.parent;
    }
    return undefined;
  }

  /** Whether level `level` (1-based) of a list style is numbered. */
  ordered(listStyle: string | undefined, level: number): boolean {
    return listStyle === undefined ? false : (this.#lists.get(listStyle)?.get(Math.min(10, level)) ?? false);
  }

  hidden(tableStyle: string | undefined): boolean {
    return tableStyle !== undefined && this.#styles.get(tableStyle)?.hidden === true;
  }
}
