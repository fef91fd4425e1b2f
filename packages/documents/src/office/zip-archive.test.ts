import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import { rawZip } from './__fixtures__/test-helpers.js';
import { ParseGuard } from './parse-guard.js';
import { ZipArchive } from './zip-archive.js';

const guard = new ParseGuard({ deadline: Number.MAX_SAFE_INTEGER, signal: new AbortController().signal });
const open = (bytes: Uint8Array, maxInflatedBytes = 1 << 20, maxEntries?: number) =>
  ZipArchive.open(bytes, { format: 'docx', maxInflatedBytes, guard, ...(maxEntries ? { maxEntries } : {}) });

function thrown(fn: () => unknown): TrawlError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TrawlError) return err;
    throw err;
  }
  throw new Error('expected a TrawlError');
}

describe('ZipArchive', () => {
  it('reads stored and deflated entries by name (any case, leading slash ignored)', () => {
    const zip = open(rawZip([{ name: 'a.txt', content: 'stored', method: 0 }, { name: 'Dir/B.xml', content: '<x>deflated</x>' }]));
    expect(zip.entries.map((e) => e.name)).toEqual(['a.txt', 'Dir/B.xml']);
    expect(zip.readText('a.txt')).toBe('stored');
    expect(zip.readText('/dir/b.xml')).toBe('<x>deflated</x>');
    expect(zip.inflatedBytes).toBe(6 + 15);
  });

  it('stops a bomb whose header declares a tiny size once the actual output passes the limit', () => {
    const bomb = rawZip([{ name: 'word/document.xml', content: new Uint8Array(64 * 1024 * 1024), declaredSize: 10 }]);
    expect(bomb.length).toBeLessThan(200_000);
    const zip = open(bomb, 1024 * 1024);
    let seen = 0;
    const err = thrown(() => zip.stream('word/document.xml', (c) => (seen += c.length)));
    expect(err.code).toBe('DOCUMENT_TOO_LARGE');
    expect(err.details).toMatchObject({ limit: 'inflatedBytes' });
    // Inflation is incremental: far less than the 64 MB was produced before the stop.
    expect(seen).toBeLessThan(8 * 1024 * 1024);
  });

  it('counts the budget across entries', () => {
    const zip = open(rawZip([{ name: 'a', content: 'x'.repeat(600) }, { name: 'b', content: 'y'.repeat(600) }]), 1000);
    zip.read('a');
    expect(thrown(() => zip.read('b')).code).toBe('DOCUMENT_TOO_LARGE');
  });

  it('refuses too many entries', () => {
    const entries = Array.from({ length: 20 }, (_, i) => ({ name: `f${i}`, content: '' }));
    const err = thrown(() => open(rawZip(entries), 1 << 20, 10));
    expect(err.code).toBe('DOCUMENT_TOO_LARGE');
    expect(err.details).toMatchObject({ limit: 'zipEntries' });
  });

  it('reports a truncated file as DOCUMENT_CORRUPT with the format', () => {
    const bytes = rawZip([{ name: 'word/document.xml', content: '<w:document/>'.repeat(100) }]);
    const err = thrown(() => open(bytes.subarray(0, bytes.length - 30)));
    expect(err.code).toBe('DOCUMENT_CORRUPT');
    expect(err.details).toEqual({ format: 'docx' });
    expect(thrown(() => open(new TextEncoder().encode('not a zip at all'))).code).toBe('DOCUMENT_CORRUPT');
  });

  it('reports a damaged deflate stream as DOCUMENT_CORRUPT', () => {
    const bytes = rawZip([{ name: 'a.xml', content: 'hello '.repeat(1000) }]);
    // Overwrite the middle of the deflate data (after the 30-byte header and the name).
    bytes.fill(0xff, 40, 60);
    expect(thrown(() => open(bytes).read('a.xml')).code).toBe('DOCUMENT_CORRUPT');
  });

  it('refuses encrypted entries with DOCUMENT_ENCRYPTED', () => {
    const zip = open(rawZip([{ name: 'word/document.xml', content: 'secret', flags: 1 }]));
    expect(thrown(() => zip.read('word/document.xml')).code).toBe('DOCUMENT_ENCRYPTED');
  });

  it('reports a missing part as DOCUMENT_CORRUPT', () => {
    expect(thrown(() => open(rawZip([{ name: 'a', content: '' }])).read('b')).code).toBe('DOCUMENT_CORRUPT');
  });
});
