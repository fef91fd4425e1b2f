import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { TrawlError } from '@trawl/api-schema';
import { assertValidBlobKey } from './blob-key.js';
import { blobSignature, verifyBlobSignature, type BlobSignatureCheck } from './blob-signature.js';
import {
  assertValidContentType,
  resolveUrlTtlSec,
  type BlobStore,
  type BlobUrlOptions,
  type PutBlobInput,
} from './blob-store.js';

/** Options of {@link LocalBlobStore}. */
export interface LocalBlobStoreOptions {
  /**
   * Directory holding the blobs (`TRAWL_BLOB_DIR`, default `.data/blobs`); created if missing. Every
   * process that writes or serves blobs must see the same directory (a shared volume when they run on
   * several hosts). Layout: `objects/<key>` (bytes), `meta/<key>.json` (content type), `tmp/`.
   */
  root: string;
  /**
   * Absolute base URL of the API that serves `/v2/blobs/*` (`TRAWL_BLOB_PUBLIC_URL`, else the API's
   * public URL), without a trailing slash, e.g. `https://trawl.example.com`.
   */
  publicBaseUrl: string;
  /**
   * HMAC key of the URL signatures (`TRAWL_BLOB_SIGNING_SECRET`). Default: 32 random bytes made at
   * construction, so URLs verify only in this process and only until it restarts. Give the same secret to
   * every process when workers (which sign) and the API (which verifies) are separate processes.
   */
  signingSecret?: string;
  /** Default lifetime of URLs from {@link LocalBlobStore.url}, in seconds (`TRAWL_BLOB_URL_TTL_SEC`). Default 86400. */
  urlTtlSec?: number;
}

/** What {@link LocalBlobStore.read} returns. */
export interface LocalBlob {
  /** The bytes. The caller must consume or destroy it (it holds an open file). */
  stream: Readable;
  /** The media type given to `put`. */
  contentType: string;
  /** Size in bytes of exactly what `stream` yields. */
  size: number;
}

/** Result of {@link LocalBlobStore.sweep}. */
export interface SweepResult {
  /** Blobs deleted (each counted once, bytes and sidecar together). */
  deleted: number;
}

interface BlobMeta {
  contentType: string;
}

// Duck-typed, not `instanceof Error`: errors of node:fs may come from another realm (jest's VM modules).
function isNodeError(err: unknown, ...codes: string[]): boolean {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' && codes.includes(code);
}

/**
 * Blobs as files under one directory, served by the API's `GET /v2/blobs/<key>` route through
 * {@link LocalBlobStore.verify} and {@link LocalBlobStore.read}. The default store: no outside service.
 * Expiry is this store's job: the process that owns it calls {@link LocalBlobStore.sweep} on an interval.
 */
export class LocalBlobStore implements BlobStore {
  readonly kind = 'local' as const;
  /** True when no signing secret was given and URLs are only valid in this process (see options). */
  readonly ephemeralSecret: boolean;
  private readonly root: string;
  private readonly publicBaseUrl: string;
  private readonly secret: string | Buffer;
  private readonly urlTtlSec: number;
  private sweeping: Promise<SweepResult> | undefined;

  constructor(opts: LocalBlobStoreOptions) {
    this.root = resolve(opts.root);
    const base = new URL(opts.publicBaseUrl);
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new RangeError(`publicBaseUrl must be an http(s) URL, got ${opts.publicBaseUrl}`);
    }
    this.publicBaseUrl = opts.publicBaseUrl.replace(/\/+$/, '');
    this.ephemeralSecret = opts.signingSecret === undefined;
    this.secret = opts.signingSecret ?? randomBytes(32);
    this.urlTtlSec = resolveUrlTtlSec(undefined, opts.urlTtlSec ?? 86_400);
  }

  async put(input: PutBlobInput): Promise<void> {
    assertValidBlobKey(input.key);
    assertValidContentType(input.contentType);
    if (!Buffer.isBuffer(input.body)) throw new TypeError('put: body must be a Buffer');
    const meta: BlobMeta = { contentType: input.contentType };
    try {
      // Bytes first, then the sidecar: the sidecar's arrival is what makes the blob readable, so a crash
      // in between leaves an unreadable file that sweep() removes, never a blob without a content type.
      await this.writeAtomic(this.pathOf('objects', input.key), input.body);
      await this.writeAtomic(this.pathOf('meta', `${input.key}.json`), JSON.stringify(meta));
    } catch (err) {
      // `a/b` stored as a file makes `a/b/c` impossible (and the reverse): a key clash, not an outage.
      if (isNodeError(err, 'ENOTDIR', 'EISDIR', 'EEXIST')) {
        throw new TrawlError('BLOB_INVALID_KEY', 'Blob key clashes with an existing key', { cause: err });
      }
      throw new TrawlError('BLOB_STORE_FAILED', 'Could not write blob', { cause: err });
    }
  }

  /** `<publicBaseUrl>/v2/blobs/<key>?expires=<unix sec>&signature=<hex HMAC-SHA256>`. */
  async url(key: string, opts: BlobUrlOptions = {}): Promise<string> {
    assertValidBlobKey(key);
    const expires = Math.floor(Date.now() / 1000) + resolveUrlTtlSec(opts.expiresInSec, this.urlTtlSec);
    const signature = blobSignature({ key, expires, secret: this.secret });
    // Valid keys contain only URL-safe characters: no encoding needed, and none to get wrong.
    return `${this.publicBaseUrl}/v2/blobs/${key}?expires=${expires}&signature=${signature}`;
  }

  /** Checks a URL's `expires` and `signature` query parameters for `key` with this store's secret. */
  verify(input: { key: string; expires: unknown; signature: unknown; nowMs?: number }): BlobSignatureCheck {
    return verifyBlobSignature({ ...input, secret: this.secret });
  }

  /**
   * Opens a blob for reading. Size and bytes come from the same open file, so a concurrent `put` of the
   * same key never produces a Content-Length that does not match the body.
   * @throws TrawlError `NOT_FOUND`, `BLOB_INVALID_KEY`, `BLOB_STORE_FAILED`.
   */
  async read(key: string): Promise<LocalBlob> {
    assertValidBlobKey(key);
    let meta: BlobMeta;
    try {
      meta = JSON.parse(await readFile(this.pathOf('meta', `${key}.json`), 'utf8')) as BlobMeta;
    } catch (err) {
      if (isNodeError(err, 'ENOENT', 'ENOTDIR')) throw new TrawlError('NOT_FOUND', 'Blob not found');
      throw new TrawlError('BLOB_STORE_FAILED', 'Could not read blob', { cause: err });
    }
    let handle;
    try {
      handle = await open(this.pathOf('objects', key), 'r');
    } catch (err) {
      if (isNodeError(err, 'ENOENT', 'ENOTDIR')) throw new TrawlError('NOT_FOUND', 'Blob not found');
      throw new TrawlError('BLOB_STORE_FAILED', 'Could not read blob', { cause: err });
    }
    try {
      const { size } = await handle.stat();
      let contentType = 'application/octet-stream';
      try {
        assertValidContentType(meta.contentType);
        contentType = meta.contentType;
      } catch {
        // A hand-edited sidecar: serve the bytes as opaque rather than echo an unchecked header value.
      }
      return { stream: handle.createReadStream(), contentType, size };
    } catch (err) {
      await handle.close();
      throw new TrawlError('BLOB_STORE_FAILED', 'Could not read blob', { cause: err });
    }
  }

  /**
   * Deletes blobs written more than `olderThanSec` seconds ago (`TRAWL_BLOB_RETENTION_SEC`), leftovers of
   * interrupted writes, and directories left empty. Concurrent calls share one pass.
   */
  sweep(opts: { olderThanSec: number }): Promise<SweepResult> {
    this.sweeping ??= this.sweepOnce(Date.now() - opts.olderThanSec * 1000).finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  /** Nothing to release (no handles stay open between calls); waits for a running sweep. */
  async close(): Promise<void> {
    await this.sweeping?.catch(() => undefined);
  }

  private pathOf(area: 'objects' | 'meta' | 'tmp', relative: string): string {
    const areaRoot = join(this.root, area);
    const path = resolve(areaRoot, relative);
    // The key rules already make escaping impossible; this keeps it impossible if they ever loosen.
    if (!path.startsWith(areaRoot + sep)) throw new TrawlError('BLOB_INVALID_KEY', 'Invalid blob key');
    return path;
  }

  /** Temp file in `tmp/` (same file system as the target) then rename: readers see all or nothing. */
  private async writeAtomic(target: string, data: Buffer | string): Promise<void> {
    const tmp = this.pathOf('tmp', randomUUID());
    await mkdir(dirname(tmp), { recursive: true });
    try {
      await writeFile(tmp, data, { flag: 'wx' });
      await mkdir(dirname(target), { recursive: true });
      try {
        await rename(tmp, target);
      } catch (err) {
        // A sweep may prune the (momentarily empty) target directory between mkdir and rename.
        if (!isNodeError(err, 'ENOENT')) throw err;
        await mkdir(dirname(target), { recursive: true });
        await rename(tmp, target);
      }
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
  }

  private async sweepOnce(cutoffMs: number): Promise<SweepResult> {
    let deleted = 0;
    for (const file of await this.filesUnder('objects')) {
      const st = await stat(file.path).catch(() => null);
      if (!st || st.mtimeMs >= cutoffMs) continue;
      // Sidecar first: once it is gone the blob is unreadable, so no reader sees a half-deleted blob.
      await unlink(this.pathOf('meta', `${file.relative}.json`)).catch(() => undefined);
      await unlink(file.path).catch(() => undefined);
      deleted += 1;
    }
    for (const file of await this.filesUnder('tmp')) {
      const st = await stat(file.path).catch(() => null);
      if (st && st.mtimeMs < cutoffMs) await unlink(file.path).catch(() => undefined);
    }
    await this.pruneEmptyDirs(join(this.root, 'objects'));
    await this.pruneEmptyDirs(join(this.root, 'meta'));
    return { deleted };
  }

  private async filesUnder(area: 'objects' | 'tmp'): Promise<{ path: string; relative: string }[]> {
    const base = join(this.root, area);
    const out: { path: string; relative: string }[] = [];
    const walk = async (dir: string, prefix: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
        if (entry.isDirectory()) await walk(join(dir, entry.name), relative);
        else if (entry.isFile()) out.push({ path: join(dir, entry.name), relative });
      }
    };
    await walk(base, '');
    return out;
  }

  /** Removes empty subdirectories of `dir` (not `dir` itself); a put racing in just recreates them. */
  private async pruneEmptyDirs(dir: string): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const sub = join(dir, entry.name);
      await this.pruneEmptyDirs(sub);
      await rmdir(sub).catch(() => undefined);
    }
  }
}
