import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, deflateRaw, deflateRawSync, type BrotliOptions, type ZlibOptions } from 'node:zlib';

/**
 * Inputs up to this size are compressed on the calling thread while its event loop has room. Below
 * it the work (tens of microseconds) costs less than the hop to libuv's pool and back, and it never
 * queues behind other work there (a crawl sends three compressions a page); larger inputs, and every
 * input while the loop is busy (`busy`, an `EventLoopLoad`), go to the pool, so other cores
 * take them.
 */
export const INLINE_COMPRESS_MAX_BYTES = 16 * 1024;

const brotliAsync = promisify(brotliCompress);
const deflateRawAsync = promisify(deflateRaw);

/** Whether the calling thread's loop is busy (see {@link EventLoopLoad.busy}); absent: never. */
export type LoopBusy = () => boolean;

function inline(input: Buffer, busy: LoopBusy | undefined): boolean {
  return input.length <= INLINE_COMPRESS_MAX_BYTES && !(busy?.() ?? false);
}

/** Brotli of `input`: inline when it is small and the loop has room, on libuv's pool otherwise. */
export function brotli(input: Buffer, options: BrotliOptions, busy?: LoopBusy): Promise<Buffer> {
  return inline(input, busy) ? Promise.resolve(brotliCompressSync(input, options)) : brotliAsync(input, options);
}

/** Raw deflate of `input`: inline when it is small and the loop has room, on libuv's pool otherwise. */
export function deflateRawBuffer(input: Buffer, options: ZlibOptions, busy?: LoopBusy): Promise<Buffer> {
  return inline(input, busy) ? Promise.resolve(deflateRawSync(input, options)) : deflateRawAsync(input, options);
}
