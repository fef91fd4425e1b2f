/** One line of text placed on a page of {@link buildPdf}. */
export interface PdfTextLine {
  text: string;
  /** Left edge in points from the page's left. Default 72. */
  x?: number;
  /** Baseline in points from the page's TOP (converted to PDF's bottom-up space). */
  y: number;
  /** Font size in points. Default 11. */
  size?: number;
  bold?: boolean;
}

/** Options of {@link buildPdf}. */
export interface BuildPdfOptions {
  /** Document info `/Title`. */
  title?: string;
  /** Page size in points. Default US Letter (612 x 792). */
  width?: number;
  height?: number;
}

function escapePdfString(s: string): string {
  return s.replace(/[\\()]/g, (c) => `\\${c}`).replace(/[^\x20-\x7e]/g, '?');
}

/**
 * Writes a small, valid PDF (1.4, uncompressed, Helvetica and Helvetica-Bold, correct xref) whose
 * pages hold the given lines: for tests that need exact text at exact places, or thousands of pages
 * (a page budget test) without a browser. Text is Latin-1 printable only.
 */
export function buildPdf(pages: PdfTextLine[][], opts: BuildPdfOptions = {}): Buffer {
  const width = opts.width ?? 612;
  const height = opts.height ?? 792;
  const objects: string[] = [];
  const add = (body: string) => objects.push(body) ; // object number = index + 1
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(''); // pages tree, filled below
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
  const info = opts.title !== undefined ? add(`<< /Title (${escapePdfString(opts.title)}) /Producer (trawl test writer) >>`) : 0;
  const kids: number[] = [];
  for (const lines of pages) {
    const content = lines.map((l) => {
      const size = l.size ?? 11;
      return `BT /${l.bold ? 'F2' : 'F1'} ${size} Tf ${l.x ?? 72} ${height - l.y} Td (${escapePdfString(l.text)}) Tj ET`;
    }).join('\n');
    const stream = add(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`);
    kids.push(add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents ${stream} 0 R >>`));
  }
  objects[1] = `<< /Type /Pages /Count ${kids.length} /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] >>`;
  const chunks: string[] = ['%PDF-1.4\n%\xe2\xe3\xcf\xd3\n'];
  let offset = Buffer.byteLength(chunks[0]!, 'latin1');
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    const obj = `${i + 1} 0 obj\n${body}\nendobj\n`;
    offsets.push(offset);
    chunks.push(obj);
    offset += Buffer.byteLength(obj, 'latin1');
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, '0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  const trailer = `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${info ? ` /Info ${info} 0 R` : ''} >>\nstartxref\n${offset}\n%%EOF\n`;
  chunks.push(xref, trailer);
  return Buffer.from(chunks.join(''), 'latin1');
}
