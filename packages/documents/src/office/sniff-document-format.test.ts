import { describe, expect, it } from '@jest/globals';
import { fixture, ole2, rawZip } from './__fixtures__/test-helpers.js';
import { isEncryptedOoxml, sniffDocumentFormat } from './sniff-document-format.js';

const text = (s: string) => new TextEncoder().encode(s);

describe('sniffDocumentFormat', () => {
  it.each([
    ['report.docx', 'docx'], ['sales.xlsx', 'xlsx'], ['deck.pptx', 'pptx'], ['notes.odt', 'odt'], ['stock.ods', 'ods'], ['talk.odp', 'odp'],
  ])('recognizes %s from its bytes alone', (name, format) => {
    expect(sniffDocumentFormat({ bytes: fixture(name) })).toBe(format);
    // The bytes win over a misleading type or name.
    expect(sniffDocumentFormat({ bytes: fixture(name), mimeType: 'text/csv', filename: 'x.csv' })).toBe(format);
  });

  it('falls back to OOXML part names when [Content_Types].xml says nothing', () => {
    expect(sniffDocumentFormat({ bytes: rawZip([{ name: 'xl/workbook.xml', content: '<workbook/>' }]) })).toBe('xlsx');
    expect(sniffDocumentFormat({ bytes: rawZip([{ name: 'mimetype', content: 'application/epub+zip', method: 0 }]) })).toBeUndefined();
  });

  it('tells legacy OLE2 files from encrypted OOXML', () => {
    expect(sniffDocumentFormat({ bytes: ole2(false), filename: 'old.doc' })).toBe('legacy-office');
    expect(isEncryptedOoxml(ole2(true))).toBe(true);
    expect(isEncryptedOoxml(ole2(false))).toBe(false);
    expect(sniffDocumentFormat({ bytes: ole2(true) })).toBe('docx');
    expect(sniffDocumentFormat({ bytes: ole2(true), filename: 'budget.xlsx' })).toBe('xlsx');
    expect(sniffDocumentFormat({ bytes: ole2(true), mimeType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation' })).toBe('pptx');
  });

  it('recognizes RTF by its magic, CSV by type or name', () => {
    expect(sniffDocumentFormat({ bytes: text('{\\rtf1\\ansi hello}') })).toBe('rtf');
    expect(sniffDocumentFormat({ bytes: text('a,b\n1,2\n'), mimeType: 'text/csv; charset=utf-8' })).toBe('csv');
    expect(sniffDocumentFormat({ bytes: text('a\tb\n'), mimeType: 'text/tab-separated-values' })).toBe('csv');
    expect(sniffDocumentFormat({ bytes: text('a;b\n'), filename: 'export.CSV' })).toBe('csv');
    expect(sniffDocumentFormat({ bytes: text('a\tb\n'), filename: 'data.tsv' })).toBe('csv');
  });

  it('leaves PDFs, images, binary and plain text alone', () => {
    expect(sniffDocumentFormat({ bytes: text('%PDF-1.7\n'), mimeType: 'application/pdf' })).toBeUndefined();
    expect(sniffDocumentFormat({ bytes: new Uint8Array([0x89, 0x50, 0x4e, 0x47]) })).toBeUndefined();
    expect(sniffDocumentFormat({ bytes: new Uint8Array([1, 0, 2, 0]), filename: 'x.csv' })).toBeUndefined();
    expect(sniffDocumentFormat({ bytes: text('hello'), mimeType: 'text/plain' })).toBeUndefined();
    expect(sniffDocumentFormat({ bytes: new Uint8Array([0x50, 0x4b, 3, 4, 0, 0]) })).toBeUndefined();
  });
});
