import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { checkPdfStreams } from './stream-budget.js';

/** A one-page PDF whose content stream is `content`, Flate-compressed `layers` times. */
function pdfWithStream(content: Buffer, truncate = false, opts: { layers?: number; dict?: string } = {}): Buffer {
  let z = content;
  for (let i = 0; i < (opts.layers ?? 1); i++) z = deflateSync(z);
  if (truncate) z = z.subarray(0, Math.floor(z.length / 2));
  const dict = opts.dict ?? `/Length ${z.length} /Filter /FlateDecode`;
  return Buffer.concat([
    Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Count 1 /Kids [3 0 R] >>\nendobj\n'),
    Buffer.from('3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>\nendobj\n'),
    Buffer.from(`4 0 obj\n<< ${dict} >>\nstream\n`), z, Buffer.from('\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n'),
  ]);
}
const MB = 1024 * 1024;
const none = () => undefined;

describe('checkPdfStreams', () => {
  it('refuses a stream that inflates past the per-stream budget (a bomb)', async () => {
    const bomb = pdfWithStream(Buffer.alloc(40 * MB, 0x20));
    expect(bomb.length).toBeLessThan(100_000);
    await expect(checkPdfStreams(bomb, { perStream: 8 * MB, total: 32 * MB }, none)).rejects.toMatchObject({
      code: 'DOCUMENT_TOO_LARGE', details: { limit: 'inflatedBytes' },
    });
  });

  it('follows nested Flate layers and ignores what the dictionary claims', async () => {
    const budget = { perStream: 8 * MB, total: 32 * MB };
    const doubled = pdfWithStream(Buffer.alloc(100 * MB, 0x20), false, { layers: 2, dict: '/Filter [/FlateDecode /FlateDecode]' });
    expect(doubled.length).toBeLessThan(5_000);
    await expect(checkPdfStreams(doubled, budget, none)).rejects.toMatchObject({ code: 'DOCUMENT_TOO_LARGE' });
    const hidden = pdfWithStream(Buffer.alloc(40 * MB, 0x20), false, { dict: `/Filter 5 0 R /X (${'a'.repeat(6000)})` });
    await expect(checkPdfStreams(hidden, budget, none)).rejects.toMatchObject({ code: 'DOCUMENT_TOO_LARGE' });
  });

  it('counts every stream against the total', async () => {
    const one = pdfWithStream(Buffer.alloc(6 * MB, 0x20));
    const three = Buffer.concat([one, one, one]);
    await expect(checkPdfStreams(three, { perStream: 8 * MB, total: 64 * MB }, none)).resolves.toBeUndefined();
    await expect(checkPdfStreams(three, { perStream: 8 * MB, total: 16 * MB }, none)).rejects.toMatchObject({ code: 'DOCUMENT_TOO_LARGE' });
  });

  it('passes real files and leaves broken streams to pdf.js', async () => {
    const text = readFileSync(join(import.meta.dirname ?? '', '__fixtures__', 'text.pdf'));
    await expect(checkPdfStreams(text, { perStream: MB, total: 4 * MB }, none)).resolves.toBeUndefined();
    await expect(checkPdfStreams(pdfWithStream(Buffer.alloc(MB, 0x41), true), { perStream: MB, total: MB }, none)).resolves.toBeUndefined();
  });

  it('checks the deadline between streams', async () => {
    const expired = () => {
      throw new Error('out of time');
    };
    await expect(checkPdfStreams(pdfWithStream(Buffer.from('BT ET')), { perStream: MB, total: MB }, expired)).rejects.toThrow('out of time');
  });
});
