import { TrawlError } from '@trawl/api-schema';
import type { ParseDocumentOptions, ParsedDocument } from '../types.js';
import { renderBlocks, type Block } from './blocks.js';
import { DocxBodyBuilder, type DocxContext } from './docx-body.js';
import { DocxNumbering, DocxStyles } from './docx-styles.js';
import { htmlDocument } from './html-text.js';
import { mainPartName, readAppCount, readCoreProperties, readRelationships, relOfType, REL } from './opc-package.js';
import { openPackage } from './open-package.js';
import { streamXml, type StreamXmlOptions } from './xml-stream.js';
import type { ZipArchive } from './zip-archive.js';

/**
 * DOCX (WordprocessingML) -> semantic HTML: headings from paragraph styles and outline levels, lists
 * from numbering definitions, tables with spans, links, bold/italic, footnotes and endnotes after the
 * body, and the core properties as metadata.
 *
 * Page counts: a DOCX has no pages until a word processor lays it out, so `totalPages` is the count
 * Word last saved in `docProps/app.xml` (`<Pages>`) when present, and `numPages` is that count, or 1
 * without it (the whole document is always read).
 */
export async function readDocx(bytes: Uint8Array, options: ParseDocumentOptions): Promise<ParsedDocument> {
  const { zip, guard } = openPackage(bytes, 'docx', options);
  const warnings: string[] = [];
  const xml: StreamXmlOptions = { guard, warnings };
  const main = mainPartName(zip, 'word/document.xml', xml);
  if (!zip.has(main)) throw new TrawlError('DOCUMENT_CORRUPT', 'The package has no document part.', { details: { format: 'docx' } });
  const rels = readRelationships(zip, main, xml);
  const stylesRel = relOfType(rels, REL.styles);
  const numberingRel = relOfType(rels, REL.numbering);
  const ctx: DocxContext = {
    styles: stylesRel && zip.has(stylesRel.target) ? DocxStyles.read(zip, stylesRel.target, xml) : DocxStyles.empty(),
    numbering: numberingRel && zip.has(numberingRel.target) ? DocxNumbering.read(zip, numberingRel.target, xml) : DocxNumbering.empty(),
    noteNumbers: new Map(),
  };
  guard.check();
  const body = new DocxBodyBuilder(ctx, rels);
  streamXml(zip, main, body, xml);
  guard.check();
  const blocks: Block[] = [...body.blocks, ...readNotes(zip, ctx, rels, xml)];
  const metadata = readCoreProperties(zip, xml);
  const language = metadata['language'] ?? ctx.styles.language;
  if (language !== undefined) metadata['language'] = language;
  const pages = readAppCount(zip, 'Pages', xml);
  const title = metadata['title'];
  delete metadata['title'];
  return {
    format: 'docx',
    html: htmlDocument({ title, language, body: renderBlocks(blocks) }),
    ...(title !== undefined ? { title } : {}),
    metadata,
    numPages: pages ?? 1,
    ...(pages !== undefined ? { totalPages: pages } : {}),
    ocrPages: 0,
    warnings,
  };
}

/** The referenced footnotes and endnotes, in order of first reference, as `[n] text` paragraphs after a rule. */
function readNotes(zip: ZipArchive, ctx: DocxContext, mainRels: ReturnType<typeof readRelationships>, xml: StreamXmlOptions): Block[] {
  if (ctx.noteNumbers.size === 0) return [];
  const notes = new Map<string, Block[]>();
  for (const suffix of [REL.footnotes, REL.endnotes]) {
    const rel = relOfType(mainRels, suffix);
    if (!rel || !zip.has(rel.target)) continue;
    const builder = new DocxBodyBuilder(ctx, readRelationships(zip, rel.target, xml));
    streamXml(zip, rel.target, builder, xml);
    for (const [key, blocks] of builder.notes) notes.set(key, blocks);
  }
  const out: Block[] = [];
  for (const [key, n] of ctx.noteNumbers) {
    const blocks = notes.get(key);
    if (!blocks) continue;
    const text = blocks.map((b) => (b.kind === 'paragraph' ? b.html : '')).filter((h) => h !== '').join(' ');
    out.push({ kind: 'paragraph', html: `[${n}] ${text}` });
  }
  return out.length ? [{ kind: 'html', html: '<hr>' }, ...out] : [];
}
