import { attr, streamXml, type StreamXmlOptions, type XmlTag } from './xml-stream.js';
import type { ZipArchive } from './zip-archive.js';

interface StyleDef {
  type: string;
  name: string;
  basedOn?: string;
  outlineLevel?: number;
  numId?: string;
  ilvl?: number;
  bold?: boolean;
  italic?: boolean;
}

/** `w:b`, `w:i`...: on unless `w:val` says off. */
export function onOff(tag: XmlTag): boolean {
  const v = attr(tag, 'val');
  return v === undefined || !/^(?:0|false|off|none)$/i.test(v);
}

const CODE_STYLE = /\b(?:code|preformatted)\b|^plain text$/i;
/** How deep `w:basedOn` chains are followed (they may loop in hostile files). */
const MAX_BASED_ON = 16;

/** The paragraph and character styles of `word/styles.xml` that change the HTML: headings, code, list membership, bold/italic. */
export class DocxStyles {
  private constructor(
    private readonly defs: Map<string, StyleDef>,
    /** Default language of the document's text (`w:docDefaults`). */
    readonly language: string | undefined,
  ) {}

  /** No styles part: headings are still recognized by the built-in style ids (`Heading1`, `Title`). */
  static empty(): DocxStyles {
    return new DocxStyles(new Map(), undefined);
  }

  static read(zip: ZipArchive, part: string, opts: StreamXmlOptions): DocxStyles {
    const defs = new Map<string, StyleDef>();
    let language: string | undefined;
    let current: StyleDef | undefined;
    let inDefaults = false;
    let where: 'pPr' | 'rPr' | undefined;
    streamXml(zip, part, {
      open(tag) {
        switch (tag.local) {
          case 'docDefaults': inDefaults = true; break;
          case 'style': {
            const id = attr(tag, 'styleId');
            current = { type: attr(tag, 'type') ?? 'paragraph', name: '' };
            if (id !== undefined && !defs.has(id)) defs.set(id, current);
            break;
          }
          case 'pPr': case 'rPr': where = tag.local; break;
          case 'lang': if (inDefaults && where === 'rPr') language ??= attr(tag, 'val'); break;
          default: if (current) readStyleProperty(current, tag, where);
        }
      },
      close(tag) {
        if (tag.local === 'style') current = undefined;
        else if (tag.local === 'docDefaults') inDefaults = false;
        else if (tag.local === 'pPr' || tag.local === 'rPr') where = undefined;
      },
    }, opts);
    return new DocxStyles(defs, language);
  }

  /** Heading level 1..6 of a paragraph style (Title is 1), following `basedOn`. */
  headingLevel(styleId: string | undefined): number | undefined {
    for (let id = styleId, i = 0; id !== undefined && i < MAX_BASED_ON; i++) {
      const def = this.defs.get(id);
      const name = (def?.name ?? '').toLowerCase();
      const fromName = /^heading\s*([1-9])$/.exec(name)?.[1] ?? /^heading([1-9])$/i.exec(id)?.[1];
      if (fromName) return Math.min(6, Number(fromName));
      if (name === 'title' || (!def && /^title$/i.test(id))) return 1;
      if (def?.outlineLevel !== undefined && def.outlineLevel < 9) return Math.min(6, def.outlineLevel + 1);
      id = def?.basedOn;
    }
    return undefined;
  }

  /** True for preformatted paragraph styles ("HTML Preformatted", "Source Code", "Plain Text"...). */
  isCode(styleId: string | undefined): boolean {
    const def = styleId === undefined ? undefined : this.defs.get(styleId);
    return def !== undefined && CODE_STYLE.test(def.name);
  }

  /** List membership a paragraph style gives (`List Bullet` carries its own `w:numPr`). */
  numbering(styleId: string | undefined): { numId: string; ilvl: number } | undefined {
    for (let id = styleId, i = 0; id !== undefined && i < MAX_BASED_ON; i++) {
      const def = this.defs.get(id);
      if (def?.numId !== undefined) return { numId: def.numId, ilvl: def.ilvl ?? 0 };
      id = def?.basedOn;
    }
    return undefined;
  }

  /** Bold/italic of a character style (`Strong`, `Emphasis`...). */
  runFormat(styleId: string | undefined): { bold?: boolean; italic?: boolean } {
    const def = styleId === undefined ? undefined : this.defs.get(styleId);
    if (!def) return {};
    const base = def.basedOn && def.basedOn !== styleId ? this.defs.get(def.basedOn) : undefined;
    return { bold: def.bold ?? base?.bold, italic: def.italic ?? base?.italic };
  }
}

function readStyleProperty(style: StyleDef, tag: XmlTag, where: 'pPr' | 'rPr' | undefined): void {
  const val = attr(tag, 'val');
  switch (tag.local) {
    case 'name': style.name = val ?? ''; break;
    case 'basedOn': style.basedOn = val; break;
    case 'outlineLvl': if (where === 'pPr' && val !== undefined && /^\d$/.test(val)) style.outlineLevel = Number(val); break;
    case 'numId': if (where === 'pPr') style.numId = val; break;
    case 'ilvl': if (where === 'pPr' && val !== undefined) style.ilvl = Number(val) || 0; break;
    case 'b': if (where === 'rPr') style.bold = onOff(tag); break;
    case 'i': if (where === 'rPr') style.italic = onOff(tag); break;
  }
}

/** `word/numbering.xml`: which list instances are bulleted and which numbered, per level. */
export class DocxNumbering {
  private constructor(
    private readonly numToAbstract: Map<string, string>,
    private readonly abstractLevels: Map<string, Map<number, string>>,
  ) {}

  static empty(): DocxNumbering {
    return new DocxNumbering(new Map(), new Map());
  }

  static read(zip: ZipArchive, part: string, opts: StreamXmlOptions): DocxNumbering {
    const numToAbstract = new Map<string, string>();
    const abstractLevels = new Map<string, Map<number, string>>();
    let levels: Map<number, string> | undefined;
    let ilvl = 0;
    let numId: string | undefined;
    streamXml(zip, part, {
      open(tag) {
        switch (tag.local) {
          case 'abstractNum': {
            levels = new Map();
            const id = attr(tag, 'abstractNumId');
            if (id !== undefined) abstractLevels.set(id, levels);
            break;
          }
          case 'lvl': ilvl = Number(attr(tag, 'ilvl') ?? 0) || 0; break;
          case 'numFmt': if (levels && !levels.has(ilvl)) levels.set(ilvl, attr(tag, 'val') ?? 'decimal'); break;
          case 'num': numId = attr(tag, 'numId'); break;
          case 'abstractNumId': if (numId !== undefined) numToAbstract.set(numId, attr(tag, 'val') ?? ''); break;
        }
      },
      close(tag) {
        if (tag.local === 'abstractNum') levels = undefined;
        else if (tag.local === 'num') numId = undefined;
      },
    }, opts);
    return new DocxNumbering(numToAbstract, abstractLevels);
  }

  /** Whether a list level is numbered; undefined when `numId` is 0 (numbering removed). */
  ordered(numId: string, ilvl: number): boolean | undefined {
    if (numId === '0') return undefined;
    const fmt = this.abstractLevels.get(this.numToAbstract.get(numId) ?? '')?.get(ilvl);
    return fmt !== undefined && fmt !== 'bullet' && fmt !== 'none';
  }
}
