import { Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import { TrawlError } from '@trawl/api-schema';

/** Options of {@link readBody}. */
export interface ReadBodyOptions {
  /** The Content-Encoding header value (`gzip`, `br`, `deflate`, a list, or undefined). */
  contentEncoding?: string;
  /** Cap on both the bytes received and the bytes after decompression, in bytes. */
  maxBytes: number;
}

function tooLarge(maxBytes: number, stage: 'received' | 'decompressed'): TrawlError {
  return new TrawlError('SCRAPE_TOO_LARGE', `The response is larger than ${maxBytes} bytes.`, {
    details: { maxBytes, stage },
  });
}

// Truncated streams decode as far as they go instead of failing, as browsers do.
const ZLIB_OPTIONS = { finishFlush: constants.Z_SYNC_FLUSH };

function decoderFor(coding: string, first: Buffer): Transform {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip(ZLIB_OPTIONS);
    case 'br':
      return createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH });
    default: {
      // `deflate` should be zlib-wrapped (RFC 9110), but some servers send raw deflate; browsers accept both.
      const [cmf = 0, flg = 0] = first;
      const zlibWrapped = (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0;
      return zlibWrapped ? createInflate(ZLIB_OPTIONS) : createInflateRaw(ZLIB_OPTIONS);
    }
  }
}

/** zlib's own failures (corrupt data), as opposed to errors of the source passing through. */
function isZlibError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__') || code.startsWith('ERR_BROTLI'));
}

/** Runs `input` through one decoder; pulling from the result is what drives the inflation. */
async function* decode(input: AsyncIterable<Buffer>, coding: string): AsyncGenerator<Buffer> {
  const it = input[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done === true) return;
  const decoder = decoderFor(coding, first.value);
  async function* replay(): AsyncGenerator<Buffer> {
    yield first.value;
    yield* { [Symbol.asyncIterator]: () => it };
  }
  // Rejections surface through the iteration below; this keeps an early stop from being unhandled.
  pipeline(Readable.from(replay()), decoder).catch(() => undefined);
  try {
    for await (const chunk of decoder) yield chunk as Buffer;
  } catch (err) {
    if (!isZlibError(err)) throw err;
    throw new TrawlError('SCRAPE_FAILED', `The response body could not be decoded (${coding}).`, {
      details: { contentEncoding: coding },
      cause: err,
    });
  } finally {
    decoder.destroy();
  }
}

async function* capReceived(source: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<Buffer> {
  let received = 0;
  for await (const chunk of source) {
    received += chunk.length;
    if (received > maxBytes) throw tooLarge(maxBytes, 'received');
    yield chunk;
  }
}

/**
 * Reads a response body, undoing its Content-Encoding as a stream, and fails with SCRAPE_TOO_LARGE as
 * soon as either the received or the decoded size passes `maxBytes`: a decompression bomb is stopped
 * after about `maxBytes` of output, never inflated in full. Unknown codings fail with
 * SCRAPE_UNSUPPORTED_CONTENT, corrupt data with SCRAPE_FAILED. The source is destroyed on failure.
 */
export async function readBody(source: Readable, options: ReadBodyOptions): Promise<Buffer> {
  const codings = (options.contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  for (const coding of codings) {
    if (!['gzip', 'x-gzip', 'deflate', 'br'].includes(coding)) {
      source.on('error', () => undefined).destroy();
      throw new TrawlError('SCRAPE_UNSUPPORTED_CONTENT', `Unsupported Content-Encoding "${coding}".`, {
        details: { contentEncoding: coding },
      });
    }
  }
  let stream: AsyncIterable<Buffer> = capReceived(source, options.maxBytes);
  // Codings are listed in the order they were applied; undo them last first.
  for (const coding of [...codings].reverse()) stream = decode(stream, coding);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      size += chunk.length;
      if (size > options.maxBytes) throw tooLarge(options.maxBytes, 'decompressed');
      chunks.push(chunk);
    }
  } finally {
    // Destroying an undici body makes it emit an abort error nobody else listens to.
    if (!source.readableEnded) source.on('error', () => undefined).destroy();
  }
  return Buffer.concat(chunks, size);
}
