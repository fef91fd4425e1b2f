import type { Redis } from 'ioredis';
import { TrawlError } from '@trawl/api-schema';
import type { RedisKeys } from './redis-keys.js';

/** Options of {@link DocumentBodyStore.put}. */
export interface PutDocumentBodyOptions {
  /** Seconds the bytes are kept if nobody deletes them (the job's deadline plus a margin). */
  ttlSec: number;
  /** Bytes accepted at most; more fails with PAYLOAD_TOO_LARGE and nothing is kept. */
  maxBytes: number;
}

/** Chunks sent to Redis at once while streaming: the writer never holds more than this. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * The bytes of a document between the role that got it (an engine's download, the gateway's upload)
 * and the `documents` role that parses it. Owner of `<p>:docbody:<jobId>`. A stream is appended in
 * 1 MiB chunks, so the gateway never holds a whole upload; the key expires on its own if the job dies.
 */
export class DocumentBodyStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  /** Stores the bytes (a buffer, or a stream of chunks); returns the size. */
  async put(jobId: string, body: Uint8Array | AsyncIterable<Uint8Array>, opts: PutDocumentBodyOptions): Promise<number> {
    const key = this.keys.documentBody(jobId);
    await this.redis.del(key);
    let size = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (pendingBytes === 0) return;
      const chunk = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      await this.redis.multi().append(key, chunk).expire(key, opts.ttlSec).exec();
    };
    try {
      const chunks: AsyncIterable<Uint8Array> | Uint8Array[] = body instanceof Uint8Array ? [body] : body;
      for await (const c of chunks) {
        size += c.byteLength;
        if (size > opts.maxBytes) {
          throw new TrawlError('PAYLOAD_TOO_LARGE', `The file is larger than ${opts.maxBytes} bytes`, { details: { maxBytes: opts.maxBytes } });
        }
        pending.push(Buffer.from(c.buffer, c.byteOffset, c.byteLength));
        pendingBytes += c.byteLength;
        if (pendingBytes >= CHUNK_BYTES) await flush();
      }
      await flush();
      if (size === 0) await this.redis.set(key, '', 'EX', opts.ttlSec);
    } catch (err) {
      await this.redis.del(key).catch(() => undefined);
      throw err;
    }
    return size;
  }

  /** The stored bytes, or null when they expired or were deleted. */
  async get(jobId: string): Promise<Buffer | null> {
    return this.redis.getBuffer(this.keys.documentBody(jobId));
  }

  /** Sets the bytes' expiry to `ttlSec` from now; false when they expired or were deleted. */
  async touch(jobId: string, ttlSec: number): Promise<boolean> {
    return (await this.redis.expire(this.keys.documentBody(jobId), ttlSec)) === 1;
  }

  async delete(jobId: string): Promise<void> {
    await this.redis.del(this.keys.documentBody(jobId));
  }
}
