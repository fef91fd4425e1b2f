// Test-only helpers of the office reader tests (not built, not linted as production code).
import { readFileSync } from 'node:fs';
import { deflateSync } from 'fflate';
import { TrawlError } from '@trawl/api-schema';
import { runHtmlPipeline } from '@trawl/html';
import type { ParseDocumentOptions } from '../../types.js';

/** Parse options with generous limits and a far deadline; override what a test needs. */
export function testOptions(over: Partial<Omit<ParseDocumentOptions, 'limits'>> & { limits?: Partial<ParseDocumentOptions['limits']> } = {}): ParseDocumentOptions {
  const { limits, ...rest } = over;
  return {
    pdfMode: 'fast',
    limits: { maxPages: 100, maxInflatedBytes: 50 * 1024 * 1024, maxCells: 100_000, ...limits },
    deadline: Number.MAX_SAFE_INTEGER,
    signal: new AbortController().signal,
    ocrLanguages: [],
    ...rest,
  };
}

/** A committed fixture file. */
export function fixture(name: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`./${name}`, import.meta.url)));
}

/** The markdown the worker's HTML pipeline makes of a reader's HTML. */
export function toMarkdown(html: string): string {
  return runHtmlPipeline(html, { url: 'https://docs.test/file', formats: { markdown: true }, onlyMainContent: false }).markdown ?? '';
}

/** The TrawlError a promise rejects with (fails the test when it resolves or throws something else). */
export async function rejection(p: Promise<unknown>): Promise<TrawlError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TrawlError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

/** One entry of {@link rawZip}: the header fields are written as given, so they can lie. */
export interface RawZipEntry {
  name: string;
  /** Uncompressed content; deflated unless `method` is 0. */
  content: Uint8Array | string;
  method?: 0 | 8;
  /** Uncompressed size to declare (default: the real one). */
  declaredSize?: number;
  /** General purpose flags (bit 0: encrypted). */
  flags?: number;
}

/** Writes a ZIP file byte by byte (local headers, central directory, end record). */
export function rawZip(entries: RawZipEntry[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const raw = typeof e.content === 'string' ? new TextEncoder().encode(e.content) : e.content;
    const method = e.method ?? 8;
    const data = method === 8 ? deflateSync(raw) : raw;
    const name = new TextEncoder().encode(e.name);
    const size = e.declaredSize ?? raw.length;
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(6, e.flags ?? 0, true);
    local.setUint16(8, method, true);
    local.setUint32(18, data.length, true);
    local.setUint32(22, size, true);
    local.setUint16(26, name.length, true);
    const cd = new DataView(new ArrayBuffer(46));
    cd.setUint32(0, 0x02014b50, true);
    cd.setUint16(4, 20, true);
    cd.setUint16(6, 20, true);
    cd.setUint16(8, e.flags ?? 0, true);
    cd.setUint16(10, method, true);
    cd.setUint32(20, data.length, true);
    cd.setUint32(24, size, true);
    cd.setUint16(28, name.length, true);
    cd.setUint32(42, offset, true);
    parts.push(new Uint8Array(local.buffer), name, data);
    central.push(new Uint8Array(cd.buffer), name);
    offset += 30 + name.length + data.length;
  }
  const cdSize = central.reduce((n, c) => n + c.length, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, entries.length, true);
  end.setUint16(10, entries.length, true);
  end.setUint32(12, cdSize, true);
  end.setUint32(16, offset, true);
  const all = [...parts, ...central, new Uint8Array(end.buffer)];
  const out = new Uint8Array(all.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of all) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** An OLE2 compound file header, optionally with an `EncryptedPackage` directory entry name. */
export function ole2(encrypted: boolean): Uint8Array {
  const bytes = new Uint8Array(2048);
  bytes.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
  const name = encrypted ? 'EncryptedPackage' : 'WordDocument';
  for (let k = 0; k < name.length; k++) bytes[1024 + 2 * k] = name.charCodeAt(k);
  return bytes;
}
