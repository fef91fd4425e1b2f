import { constants, createInflate, inflateSync } from 'node:zlib';
import { TrawlError } from '@trawl/api-schema';

/** Limits of {@link checkPdfStreams}, in inflated bytes. */
export interface PdfStreamBudget {
  /** One stream may inflate to at most this. */
  perStream: number;
  /** All Flate streams of the file together. */
  total: number;
}

/** Streams up to this compressed size are inflated in one synchronous call (bounded by the budget). */
const SYNC_BELOW_BYTES = 1024 * 1024;
/** How far back from `stream` the object's dictionary is looked for. */
const DICT_LOOKBACK = 4096;

/**
 * Inflates every FlateDecode stream of a PDF once, counting and discarding the output, and throws
 * DOCUMENT_TOO_LARGE (`inflatedBytes`) when one stream or the whole file passes its budget. pdf.js
 * decodes streams into memory outside the V8 heap (a 1.5 MB file can make it allocate 4 GB), so the
 * thread's heap limit does not protect against such a bomb: this check runs before pdf.js sees the
 * file, in constant memory. Streams that fail to inflate are left to pdf.js (it tolerates damage).
 * `checkDeadline` runs before every 32nd stream and throws when the parse is out of time.
 */
export async function checkPdfStreams(bytes: Uint8Array, budget: PdfStreamBudget, checkDeadline: () => void): Promise<void> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buf.toString('latin1');
  const keyword = /(?<![A-Za-z])stream\r?\n/g;
  let total = 0;
  let streams = 0;
  for (let m = keyword.exec(text); m !== null; m = keyword.exec(text)) {
    if (streams++ % 32 === 0) checkDeadline();
    const dictStart = text.lastIndexOf(' obj', m.index);
    const dict = text.slice(Math.max(dictStart, m.index - DICT_LOOKBACK), m.index);
    if (!/\/(?:FlateDecode|Fl)\b/.test(dict)) continue;
    const start = m.index + m[0].length;
    const end = text.indexOf('endstream', start);
    const data = buf.subarray(start, end === -1 ? buf.length : end);
    const size = await inflatedSize(data, Math.min(budget.perStream, budget.total - total) + 1);
    total += size;
    if (size > budget.perStream || total > budget.total) {
      throw new TrawlError('DOCUMENT_TOO_LARGE', `The PDF's compressed streams inflate to more than ${size > budget.perStream ? budget.perStream : budget.total} bytes (a decompression bomb?)`, {
        details: { format: 'pdf', limit: 'inflatedBytes' },
      });
    }
    keyword.lastIndex = end === -1 ? text.length : end;
  }
}

/**
 * Bytes `data` inflates to, counted up to `cap` (stops there); a broken stream counts what came out.
 * Small streams inflate in one call whose output is capped; large ones stream in constant memory.
 */
function inflatedSize(data: Buffer, cap: number): Promise<number> {
  if (data.length < SYNC_BELOW_BYTES) {
    try {
      return Promise.resolve(inflateSync(data, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: cap }).length);
    } catch (err) {
      // Past the cap, or a damaged stream (pdf.js copes with those on its own).
      return Promise.resolve((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ? cap : 0);
    }
  }
  return new Promise((resolve) => {
    const inflate = createInflate({ finishFlush: constants.Z_SYNC_FLUSH }); // tolerate truncated streams
    let size = 0;
    const done = () => {
      inflate.removeAllListeners();
      inflate.on('error', () => undefined);
      inflate.destroy();
      resolve(size);
    };
    inflate.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size >= cap) done();
    });
    inflate.on('end', done);
    inflate.on('error', done);
    inflate.end(data);
  });
}
