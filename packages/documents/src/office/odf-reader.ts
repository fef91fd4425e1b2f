import { TrawlError } from '@trawl/api-schema';
import type { ParseDocumentOptions, ParsedDocument } from '../types.js';
import { htmlDocument } from './html-text.js';
import { OdfBodyBuilder, type OdfMode } from './odf-body.js';
import { OdfStyles } from './odf-styles.js';
import { readLeafTexts } from './opc-package.js';
import { openPackage } from './open-package.js';
import { CellBudget } from './sheet-grid.js';
import { streamXml, type StreamXmlOptions } from './xml-stream.js';
import type { ZipArchive } from './zip-archive.js';

const MODES: Record<'odt' | 'ods' | 'odp', OdfMode> = { odt: 'text', ods: 'spreadsheet', odp: 'presentation' };

/**
 * OpenDocument text, spreadsheet and presentation files -> semantic HTML. ODT: headings by outline
 * level, lists nested as written (bullet or number from the list style), tables with spans, links,
 * bold/italic from automatic styles, footnotes after the body. ODS: a `<h2>` and a table per visible
 * sheet (dates as ISO 8601). ODP: a `<h2>Slide N: title</h2>` per page and its frames' text.
 * `meta.xml` gives the metadata; ODT `totalPages` is its page-count statistic when present.
 */
export async function readOdf(format: 'odt' | 'ods' | 'odp', bytes: Uint8Array, options: ParseDocumentOptions): Promise<ParsedDocument> {
  const { zip, guard } = openPackage(bytes, format, options);
  const warnings: string[] = [];
  const xml: StreamXmlOptions = { guard, warnings };
  if (zip.has('META-INF/manifest.xml') && isEncrypted(zip, xml)) {
    throw new TrawlError('DOCUMENT_ENCRYPTED', 'The document is password-protected.', { details: { format } });
  }
  if (!zip.has('content.xml')) throw new TrawlError('DOCUMENT_CORRUPT', 'The package has no content.xml.', { details: { format } });
  const styles = new OdfStyles();
  if (zip.has('styles.xml')) streamXml(zip, 'styles.xml', { open: (t) => void styles.open(t), close: (t) => styles.close(t) }, xml);
  guard.check();
  const body = new OdfBodyBuilder({ mode: MODES[format], styles, budget: new CellBudget(options.limits.maxCells), guard, maxPages: options.limits.maxPages, warnings });
  streamXml(zip, 'content.xml', body, xml);
  const { metadata, pageCount } = readMeta(zip, xml);
  const title = metadata['title'];
  delete metadata['title'];
  const paged = format !== 'odt';
  if (body.truncated) warnings.push(`Only the first ${body.pagesRead} of ${body.pages} ${format === 'ods' ? 'sheets' : 'slides'} were read.`);
  return {
    format,
    html: htmlDocument({ title, language: metadata['language'], body: body.html() }),
    ...(title !== undefined ? { title } : {}),
    metadata,
    numPages: paged ? body.pagesRead : (pageCount ?? 1),
    ...(paged ? { totalPages: body.pages } : pageCount !== undefined ? { totalPages: pageCount } : {}),
    ocrPages: 0,
    warnings,
  };
}

/** ODF encryption is per entry, declared in the manifest (`manifest:encryption-data`). */
function isEncrypted(zip: ZipArchive, xml: StreamXmlOptions): boolean {
  let encrypted = false;
  streamXml(zip, 'META-INF/manifest.xml', {
    open(tag) {
      if (tag.local === 'encryption-data') encrypted = true;
    },
  }, xml);
  return encrypted;
}

function readMeta(zip: ZipArchive, xml: StreamXmlOptions): { metadata: Record<string, string>; pageCount?: number } {
  const metadata: Record<string, string> = {};
  if (!zip.has('meta.xml')) return { metadata };
  const leaves = readLeafTexts(zip, 'meta.xml', xml);
  const fields: [string, string][] = [['title', 'title'], ['creator', 'author'], ['initial-creator', 'author'], ['subject', 'subject'],
    ['description', 'description'], ['language', 'language'], ['creation-date', 'created'], ['date', 'modified']];
  for (const [local, key] of fields) {
    const v = leaves.get(local);
    if (v !== undefined && metadata[key] === undefined) metadata[key] = v;
  }
  const keywords: string[] = [];
  let pageCount: number | undefined;
  let inKeyword = false;
  streamXml(zip, 'meta.xml', {
    open(tag) {
      inKeyword = tag.local === 'keyword';
      if (tag.local === 'keyword') keywords.push('');
      if (tag.local === 'document-statistic') {
        const n = Number(Object.values(tag.attributes).find((a) => a.local === 'page-count')?.value);
        if (Number.isInteger(n) && n > 0) pageCount = n;
      }
    },
    text(t) {
      if (inKeyword) keywords[keywords.length - 1] += t;
    },
    close() {
      inKeyword = false;
    },
  }, xml);
  const kw = keywords.map((k) => k.trim()).filter((k) => k !== '');
  if (kw.length) metadata['keywords'] = kw.join(', ');
  return { metadata, pageCount };
}
