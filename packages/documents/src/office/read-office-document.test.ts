import { describe, expect, it } from '@jest/globals';
import { fixture, rejection, testOptions } from './__fixtures__/test-helpers.js';
import { readOfficeDocument } from './read-office-document.js';
import { sniffDocumentFormat } from './sniff-document-format.js';

describe('readOfficeDocument', () => {
  it.each(['report.docx', 'sales.xlsx', 'deck.pptx', 'notes.odt', 'stock.ods', 'talk.odp'])('sniffs and reads %s', async (name) => {
    const bytes = fixture(name);
    const format = sniffDocumentFormat({ bytes });
    if (format === undefined || format === 'legacy-office') throw new Error(`not sniffed: ${name}`);
    const doc = await readOfficeDocument(format, bytes, testOptions());
    expect(doc.format).toBe(format);
    expect(doc.html).toMatch(/^<!DOCTYPE html><html[^>]*><head><meta charset="utf-8"><title>[^<]+<\/title><\/head><body>/);
    expect(doc.ocrPages).toBe(0);
  });

  it('reads RTF and CSV', async () => {
    expect((await readOfficeDocument('rtf', new TextEncoder().encode('{\\rtf1 hi\\par}'), testOptions())).html).toContain('<p>hi</p>');
    expect((await readOfficeDocument('csv', new TextEncoder().encode('a,b\n1,2'), testOptions())).html).toContain('<th>a</th>');
  });

  it('refuses PDF and images, and honours an aborted signal', async () => {
    expect((await rejection(readOfficeDocument('pdf', new Uint8Array(), testOptions()))).code).toBe('SCRAPE_UNSUPPORTED_CONTENT');
    const controller = new AbortController();
    controller.abort(new DOMException('timed out', 'TimeoutError'));
    expect((await rejection(readOfficeDocument('docx', fixture('report.docx'), testOptions({ signal: controller.signal })))).code).toBe('SCRAPE_TIMEOUT');
  });
});
