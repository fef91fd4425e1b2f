import { constants, createInflate, inflateSync, type Inflate } from 'node:zlib';
import { TrawlError } from '@trawl/api-schema';

/** Limits of {@link checkPdfStreams}, in inflated bytes. */
export interface PdfStreamBudget {
  /** One stream may inflate to at most this. */
  perStream: number;
  /** All Flate streams of the file together. */
  total: number;
}

/** One synchronous inflate call may produce at most this; bigger streams are counted streaming. */
const SYNC_OUTPUT_BYTES = 16 * 1024 * 1024;
/** Nested zlib layers followed (`/Filter [/FlateDecode /FlateDecode ...]`). */
const MAX_LAYERS = 4;

/** A zlib header: deflate method, a window of at most 32 KiB, a valid check value. */
function looksZlib(b: Uint8Array): boolean {
  const b0 = b[0] ?? 0, b1 = b[1] ?? 0;
  return b.length >= 2 && (b0 & 0x0f) === 8 && b0 >> 4 <= 7 && ((b0 << 8) | b1) % 31 === 0;
}

/**
 * Inflates every zlib stream of a PDF, counting and discarding the output, and throws
 * DOCUMENT_TOO_LARGE (`inflatedBytes`) when one stream or the whole file passes its budget. pdf.js
 * decodes streams into memory outside the V8 heap (a 1.5 MB file made it allocate 4 GB), so a parse
 * thread's heap limit does not protect against such a bomb: this check runs before pdf.js sees the file.
 * Every stream is tried whatever its dictionary says (names can be escaped, filters indirect,
 * dictionaries padded), and zlib data inside zlib data is followed, each layer counted. Streams that
 * fail to inflate are left to pdf.js (it tolerates damage). `checkDeadline` runs before every 32nd
 * stream and throws when the parse is out of time. LZW and RunLength streams are not counted.
 */
export async function checkPdfStreams(bytes: Uint8Array, budget: PdfStreamBudget, checkDeadline: () => void): Promise<void> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buf.toString('latin1');
  const keyword = /(?<![A-Za-z])stream(?:\r\n|\r|\n)/g;
  let total = 0;
  let streams = 0;
  for (let m = keyword.exec(text); m !== null; m = keyword.exec(text)) {
    if (streams++ % 32 === 0) checkDeadline();
    const start = m.index + m[0].length;
    const end = text.indexOf('endstream', start);
    const data = buf.subarray(start, end === -1 ? buf.length : end);
    if (!looksZlib(data)) continue;
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
 * Bytes `data` inflates to, every nested layer included, counted up to `cap`. A small stream whose
 * output is small and not zlib again is inflated in one bounded call; anything else streams.
 */
function inflatedSize(data: Buffer, cap: number): Promise<number> {
  try {
    const out = inflateSync(data, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: Math.min(cap, SYNC_OUTPUT_BYTES) });
    if (!looksZlib(out) && out.length < SYNC_OUTPUT_BYTES) return Promise.resolve(out.length);
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE') return Promise.resolve(0); // damaged: pdf.js copes
  }
  return streamedSize(data, cap);
}

/** The streaming count: layers of Inflate streams, each layer's output counted and fed to the next. */
function streamedSize(data: Buffer, cap: number): Promise<number> {
  return new Promise((resolve) => {
    let size = 0;
    let finished = false;
    const layers: Inflate[] = [];
    const finish = () => {
      if (finished) return;
      finished = true;
      for (const z of layers) {
        z.removeAllListeners();
        z.on('error', () => undefined);
        z.destroy();
      }
      resolve(size);
    };
    const layer = (depth: number): Inflate => {
      const z = createInflate({ finishFlush: constants.Z_SYNC_FLUSH }); // tolerate truncated streams
      layers.push(z);
      let next: Inflate | null | undefined; // undefined until the first output chunk decides
      z.on('data', (chunk: Buffer) => {
        if (finished) return;
        size += chunk.length;
        if (size >= cap) return finish();
        if (next === undefined) next = depth + 1 < MAX_LAYERS && looksZlib(chunk) ? layer(depth + 1) : null;
        next?.write(chunk);
      });
      const end = () => (next ? next.end() : finish());
      z.on('end', end);
      z.on('error', end);
      return z;
    };
    layer(0).end(data);
  });
}
