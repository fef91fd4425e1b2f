import { attr, streamXml, type StreamXmlOptions } from './xml-stream.js';
import type { ZipArchive } from './zip-archive.js';

/** One relationship of a part (from its `_rels/<name>.rels`). */
export interface Relationship {
  type: string;
  /** Resolved part name inside the package, or the URL as written when external. */
  target: string;
  external: boolean;
}

/** Relationship type suffixes (transitional and strict OOXML differ in the prefix only). */
export const REL = {
  officeDocument: '/officeDocument',
  hyperlink: '/hyperlink',
  styles: '/styles',
  numbering: '/numbering',
  footnotes: '/footnotes',
  endnotes: '/endnotes',
  sharedStrings: '/sharedStrings',
  worksheet: '/worksheet',
  slide: '/slide',
  notesSlide: '/notesSlide',
} as const;

/** Finds the first relationship whose type ends with `suffix`. */
export function relOfType(rels: Map<string, Relationship>, suffix: string): Relationship | undefined {
  for (const rel of rels.values()) if (rel.type.endsWith(suffix)) return rel;
  return undefined;
}

/** Resolves a relationship target against the folder of its source part (`../media/x.png`, `/xl/a.xml`). */
export function resolvePartName(sourcePart: string, target: string): string {
  const base = target.startsWith('/') ? [] : sourcePart.split('/').slice(0, -1);
  for (const seg of target.split('/')) {
    if (seg === '..') base.pop();
    else if (seg !== '.' && seg !== '') base.push(seg);
  }
  return base.join('/');
}

/** The relationships of a part by id (an empty map when it has none). `''` is the package itself. */
export function readRelationships(zip: ZipArchive, sourcePart: string, opts: StreamXmlOptions): Map<string, Relationship> {
  const slash = sourcePart.lastIndexOf('/');
  const relsPart = `${sourcePart.slice(0, slash + 1)}_rels/${sourcePart.slice(slash + 1)}.rels`;
  const rels = new Map<string, Relationship>();
  if (!zip.has(relsPart)) return rels;
  streamXml(zip, relsPart, {
    open(tag) {
      if (tag.local !== 'Relationship') return;
      const id = attr(tag, 'Id');
      const target = attr(tag, 'Target');
      if (id === undefined || target === undefined) return;
      const external = attr(tag, 'TargetMode') === 'External';
      rels.set(id, { type: attr(tag, 'Type') ?? '', target: external ? target : resolvePartName(sourcePart, decodeUriSafe(target)), external });
    },
  }, opts);
  return rels;
}

function decodeUriSafe(s: string): string {
  try {
    return decodeURI(s);
  } catch {
    return s;
  }
}

/** The package's main part (`word/document.xml`...), from `_rels/.rels`, else `fallback`. */
export function mainPartName(zip: ZipArchive, fallback: string, opts: StreamXmlOptions): string {
  const rel = relOfType(readRelationships(zip, '', opts), REL.officeDocument);
  return rel && !rel.external && zip.has(rel.target) ? rel.target : fallback;
}

const CORE_FIELDS: Record<string, string> = {
  title: 'title',
  creator: 'author',
  subject: 'subject',
  keywords: 'keywords',
  description: 'description',
  created: 'created',
  modified: 'modified',
  language: 'language',
  lastModifiedBy: 'lastModifiedBy',
  category: 'category',
};

/** Simple leaf elements of a small XML part (`<dc:title>x</dc:title>`), by local name; the first occurrence wins. */
export function readLeafTexts(zip: ZipArchive, part: string, opts: StreamXmlOptions): Map<string, string> {
  const out = new Map<string, string>();
  if (!zip.has(part)) return out;
  let current: string | undefined;
  let text = '';
  streamXml(zip, part, {
    open(tag) {
      current = tag.local;
      text = '';
    },
    text(t) {
      if (current !== undefined) text += t;
    },
    close(tag) {
      if (current === tag.local && !out.has(tag.local) && text.trim() !== '') out.set(tag.local, text.trim());
      current = undefined;
    },
  }, opts);
  return out;
}

/** `docProps/core.xml` as metadata: title, author (dc:creator), subject, keywords, created, modified, language... */
export function readCoreProperties(zip: ZipArchive, opts: StreamXmlOptions): Record<string, string> {
  const leaves = readLeafTexts(zip, 'docProps/core.xml', opts);
  const meta: Record<string, string> = {};
  for (const [local, key] of Object.entries(CORE_FIELDS)) {
    const v = leaves.get(local);
    if (v !== undefined) meta[key] = v;
  }
  return meta;
}

/** A count from `docProps/app.xml` (`Pages`, `Slides`), when present and sane. */
export function readAppCount(zip: ZipArchive, field: 'Pages' | 'Slides', opts: StreamXmlOptions): number | undefined {
  const v = readLeafTexts(zip, 'docProps/app.xml', opts).get(field);
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}
