import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, deflateRaw, deflateRawSync, type BrotliOptions, type ZlibOptions } from 'node:zlib';

/**
 * Inputs up to this size are compressed on the calling thread. Below it the work (tens of
 * microseconds) costs less than the hop to libuv's pool and back, and it never queues behind other
 * work there (a crawl sends three compressions a page); larger inputs still go to the pool, off the
 * event loop.
 */
const INLINE_COMPRESS_MAX_BYTES = 16 * 1024;

const brotliAsync = promisify(brotliCompress);
const deflateRawAsync = promisify(deflateRaw);

/** Brotli of `input`: inline when it is small, on libuv's pool otherwise. */
export function brotli(input: Buffer, options: BrotliOptions): Promise<Buffer> {
  return input.length <= INLINE_COMPRESS_MAX_BYTES ? Promise.resolve(brotliCompressSync(input, options)) : brotliAsync(input, options);
}

/** Raw deflate of `input`: inline when it is small, on libuv's pool otherwise. */
export function deflateRawBuffer(input: Buffer, options: ZlibOptions): Promise<Buffer> {
  return input.length <= INLINE_COMPRESS_MAX_BYTES ? Promise.resolve(deflateRawSync(input, options)) : deflateRawAsync(input, options);
}
