import { TrawlError } from '@trawl/api-schema';
import { Inflate } from 'fflate';
import type { ParseGuard } from './parse-guard.js';

/** One entry of the central directory. */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflate. */
  method: number;
  encrypted: boolean;
  compressedSize: number;
  /** As declared: never trusted for limits. */
  declaredSize: number;
  localHeaderOffset: number;
}

/** Options of {@link ZipArchive.open}. */
export interface OpenZipOptions {
  /** Format named in DOCUMENT_CORRUPT details (`docx`, `xlsx`, `zip`...). */
  format: string;
  /** Cap on the bytes inflated from all entries together (the actual output, not declared sizes). */
  maxInflatedBytes: number;
  /** Entries in the central directory at most. Default 10,000. */
  maxEntries?: number;
  guard?: ParseGuard;
}

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const ZIP64_EOCD_SIG = 0x06064b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
/** Compressed bytes handed to the inflater at a time: deflate expands at most ~1032x, so one push yields at most ~4 MB. */
const INFLATE_CHUNK = 4096;
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * A ZIP file read from its central directory, for OOXML and ODF packages. Entries are inflated only on
 * request, as a stream of chunks; the total of the bytes actually produced is held to
 * `maxInflatedBytes` across all entries, so a bomb stops after a few MB whatever its headers declare.
 */
export class ZipArchive {
  #inflated = 0;
  readonly #byName = new Map<string, ZipEntry>();
  readonly #byLowerName = new Map<string, ZipEntry>();

  private constructor(
    private readonly bytes: Uint8Array,
    readonly entries: readonly ZipEntry[],
    private readonly options: OpenZipOptions,
  ) {
    for (const e of entries) {
      if (!this.#byName.has(e.name)) this.#byName.set(e.name, e);
      // OPC part names are case-insensitive.
      if (!this.#byLowerName.has(e.name.toLowerCase())) this.#byLowerName.set(e.name.toLowerCase(), e);
    }
  }

  /** Reads the central directory; throws DOCUMENT_CORRUPT when there is none or it points outside the file. */
  static open(bytes: Uint8Array, options: OpenZipOptions): ZipArchive {
    return new ZipArchive(bytes, readCentralDirectory(bytes, options), options);
  }

  /** Bytes inflated so far, all entries together. */
  get inflatedBytes(): number {
    return this.#inflated;
  }

  /** The entry of a part name (leading `/` ignored; exact case first, then any case). */
  entry(name: string): ZipEntry | undefined {
    const n = name.replace(/^\/+/, '');
    return this.#byName.get(n) ?? this.#byLowerName.get(n.toLowerCase());
  }

  has(name: string): boolean {
    return this.entry(name) !== undefined;
  }

  /** Streams an entry's inflated bytes to `onChunk`; throws when it is missing, encrypted, corrupt or over the budget. */
  stream(name: string, onChunk: (chunk: Uint8Array) => void): void {
    const entry = this.entry(name);
    if (!entry) throw this.#corrupt(`The package has no part ${name}.`);
    if (entry.encrypted) throw new TrawlError('DOCUMENT_ENCRYPTED', 'The document is password-protected.', { details: { format: this.options.format } });
    const data = this.#entryData(entry);
    if (entry.method === 0) {
      this.#count(data.length);
      onChunk(data);
      return;
    }
    if (entry.method !== 8) throw this.#corrupt(`Unsupported ZIP compression method ${entry.method} in ${entry.name}.`);
    const inflater = new Inflate((chunk) => {
      this.#count(chunk.length);
      if (chunk.length) onChunk(chunk);
    });
    try {
      for (let off = 0; off < data.length || off === 0; off += INFLATE_CHUNK) {
        const end = Math.min(data.length, off + INFLATE_CHUNK);
        inflater.push(data.subarray(off, end), end >= data.length);
        this.options.guard?.tick();
        if (end >= data.length) break;
      }
    } catch (err) {
      if (err instanceof TrawlError) throw err;
      throw this.#corrupt(`The part ${entry.name} does not inflate: ${(err as Error).message}.`, err);
    }
  }

  /** The whole inflated entry. */
  read(name: string): Uint8Array {
    const chunks: Uint8Array[] = [];
    let size = 0;
    this.stream(name, (c) => {
      chunks.push(c);
      size += c.length;
    });
    if (chunks.length === 1 && chunks[0]) return chunks[0];
    const out = new Uint8Array(size);
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }

  /** The entry decoded as UTF-8 (BOM removed). */
  readText(name: string): string {
    return new TextDecoder('utf-8').decode(this.read(name));
  }

  #count(n: number): void {
    this.#inflated += n;
    if (this.#inflated > this.options.maxInflatedBytes) {
      throw new TrawlError('DOCUMENT_TOO_LARGE', `The document inflates to more than ${this.options.maxInflatedBytes} bytes.`, {
        details: { limit: 'inflatedBytes', maxBytes: this.options.maxInflatedBytes },
      });
    }
  }

  #entryData(entry: ZipEntry): Uint8Array {
    const at = entry.localHeaderOffset;
    if (at + 30 > this.bytes.length || u32(this.bytes, at) !== LOCAL_SIG) throw this.#corrupt(`Bad local header for ${entry.name}.`);
    // The local header's own name and extra lengths decide where the data starts (they may differ from the central copy).
    const start = at + 30 + u16(this.bytes, at + 26) + u16(this.bytes, at + 28);
    const end = start + entry.compressedSize;
    if (end > this.bytes.length) throw this.#corrupt(`The part ${entry.name} is truncated.`);
    return this.bytes.subarray(start, end);
  }

  #corrupt(message: string, cause?: unknown): TrawlError {
    return corruptError(this.options.format, message, cause);
  }
}

/** DOCUMENT_CORRUPT naming the format. */
export function corruptError(format: string, message: string, cause?: unknown): TrawlError {
  return new TrawlError('DOCUMENT_CORRUPT', message, { details: { format }, cause });
}

function u16(b: Uint8Array, at: number): number {
  return (b[at] ?? 0) | ((b[at + 1] ?? 0) << 8);
}

function u32(b: Uint8Array, at: number): number {
  return (u16(b, at) | (u16(b, at + 2) << 16)) >>> 0;
}

function u64(b: Uint8Array, at: number): number {
  return u32(b, at) + u32(b, at + 4) * 0x1_0000_0000;
}

/** The end-of-central-directory record: the last signature within the final 64 KiB + 22 bytes. */
function findEocd(bytes: Uint8Array): number {
  const min = Math.max(0, bytes.length - 65_557);
  for (let i = bytes.length - 22; i >= min; i--) {
    if (bytes[i] === 0x50 && u32(bytes, i) === EOCD_SIG) return i;
  }
  return -1;
}

function readCentralDirectory(bytes: Uint8Array, options: OpenZipOptions): ZipEntry[] {
  const corrupt = (m: string): TrawlError => corruptError(options.format, m);
  const eocd = findEocd(bytes);
  if (eocd < 0) throw corrupt('Not a ZIP file, or a truncated one (no end of central directory).');
  let count = u16(bytes, eocd + 10);
  let cdSize = u32(bytes, eocd + 12);
  let cdOffset = u32(bytes, eocd + 16);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const loc = eocd - 20;
    if (loc >= 0 && u32(bytes, loc) === ZIP64_LOCATOR_SIG) {
      const z = u64(bytes, loc + 8);
      if (z + 56 > bytes.length || u32(bytes, z) !== ZIP64_EOCD_SIG) throw corrupt('Bad ZIP64 end of central directory.');
      count = u64(bytes, z + 32);
      cdSize = u64(bytes, z + 40);
      cdOffset = u64(bytes, z + 48);
    }
  }
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES;
  if (count > maxEntries) {
    throw new TrawlError('DOCUMENT_TOO_LARGE', `The package has ${count} entries (at most ${maxEntries} are read).`, {
      details: { limit: 'zipEntries', maxEntries },
    });
  }
  if (cdOffset + cdSize > bytes.length) throw corrupt('The ZIP central directory lies outside the file (truncated?).');
  const names = new TextDecoder('utf-8');
  const legacyNames = new TextDecoder('windows-1252');
  const entries: ZipEntry[] = [];
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    options.guard?.tick();
    if (p + 46 > bytes.length || u32(bytes, p) !== CENTRAL_SIG) throw corrupt('Bad ZIP central directory entry.');
    const flags = u16(bytes, p + 8);
    const nameLen = u16(bytes, p + 28);
    const extraLen = u16(bytes, p + 30);
    const commentLen = u16(bytes, p + 32);
    if (p + 46 + nameLen + extraLen + commentLen > bytes.length) throw corrupt('Truncated ZIP central directory.');
    const rawName = bytes.subarray(p + 46, p + 46 + nameLen);
    const entry: ZipEntry = {
      name: (flags & 0x800 ? names : legacyNames).decode(rawName),
      method: u16(bytes, p + 10),
      encrypted: (flags & 1) !== 0,
      compressedSize: u32(bytes, p + 20),
      declaredSize: u32(bytes, p + 24),
      localHeaderOffset: u32(bytes, p + 42),
    };
    applyZip64Extra(entry, bytes, p + 46 + nameLen, extraLen);
    entries.push(entry);
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** ZIP64 extended information (header 0x0001): 64-bit fields present only where the 32-bit ones are saturated. */
function applyZip64Extra(entry: ZipEntry, bytes: Uint8Array, start: number, len: number): void {
  for (let q = start; q + 4 <= start + len; ) {
    const id = u16(bytes, q);
    const size = u16(bytes, q + 2);
    if (id === 0x0001) {
      let f = q + 4;
      if (entry.declaredSize === 0xffffffff && f + 8 <= q + 4 + size) {
        entry.declaredSize = u64(bytes, f);
        f += 8;
      }
      if (entry.compressedSize === 0xffffffff && f + 8 <= q + 4 + size) {
        entry.compressedSize = u64(bytes, f);
        f += 8;
      }
      if (entry.localHeaderOffset === 0xffffffff && f + 8 <= q + 4 + size) entry.localHeaderOffset = u64(bytes, f);
      return;
    }
    q += 4 + size;
  }
}
