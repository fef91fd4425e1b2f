import { describe, expect, it } from '@jest/globals';
import { rejection, testOptions, toMarkdown } from './__fixtures__/test-helpers.js';
import { decodeCsvText, detectDelimiter, parseDelimited, readCsv } from './csv-reader.js';

function records(text: string, delimiter = ','): string[][] {
  const out: string[][] = [];
  parseDelimited(text, delimiter, (f) => void out.push(f));
  return out;
}

describe('parseDelimited', () => {
  it('follows RFC 4180: quotes, escaped quotes, embedded line breaks, CRLF', () => {
    expect(records('a,b\r\n"x, y","say ""hi"""\r\n"multi\nline",z')).toEqual([['a', 'b'], ['x, y', 'say "hi"'], ['multi\nline', 'z']]);
  });

  it('accepts LF and CR line ends, empty fields, and a missing final line break', () => {
    expect(records('a,,c\n\n1,2,3\r4,5,')).toEqual([['a', '', 'c'], [''], ['1', '2', '3'], ['4', '5', '']]);
    expect(records('')).toEqual([]);
  });

  it('is lenient with stray and unterminated quotes', () => {
    expect(records('ab"c,"d"e,"open\nstill')).toEqual([['ab"c', 'de', 'open\nstill']]);
  });
});

describe('detectDelimiter', () => {
  it.each([
    ['a,b,c\n1,2,3\n', ','],
    ['a;b;c\n1,5;2,5;3\n', ';'],
    ['a\tb\n1\t2\n', '\t'],
    ['a|b|c\n1|2|3\n', '|'],
    ['"x;y",b\n"1;2",3\n', ','],
    ['single column\nvalues\n', ','],
  ])('%j -> %j', (text, delimiter) => {
    expect(detectDelimiter(text)).toBe(delimiter);
  });
});

describe('decodeCsvText', () => {
  it('uses UTF-8 when valid, windows-1252 otherwise, and honours byte order marks', () => {
    expect(decodeCsvText(new Uint8Array([0x63, 0x61, 0x66, 0xc3, 0xa9]))).toEqual({ text: 'café', encoding: 'utf-8' });
    expect(decodeCsvText(new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80]))).toEqual({ text: 'café €', encoding: 'windows-1252' });
    expect(decodeCsvText(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))).toEqual({ text: 'a', encoding: 'utf-8' });
    expect(decodeCsvText(new Uint8Array([0xff, 0xfe, 0x61, 0x00, 0x3b, 0x00]))).toEqual({ text: 'a;', encoding: 'utf-16le' });
  });
});

describe('readCsv', () => {
  it('reads a semicolon CSV in windows-1252 with quotes and line breaks into one table', async () => {
    const bytes = Buffer.concat([
      Buffer.from('name;note;price\r\n"Smith; J.";"said ""hi""\nthen left";3,5\r\n', 'latin1'),
      Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x3b, 0x3b, 0x31, 0x0d, 0x0a, 0x3b, 0x3b, 0x0d, 0x0a]),
    ]);
    const doc = await readCsv(bytes, testOptions());
    expect(doc.html).toContain('<tr><th>name</th><th>note</th><th>price</th></tr>');
    expect(doc.html).toContain('<tr><td>Smith; J.</td><td>said &quot;hi&quot;<br>then left</td><td>3,5</td></tr>');
    expect(doc.html).toContain('<tr><td>Café</td><td></td><td>1</td></tr>');
    expect(doc.html).not.toContain('<tr><td></td><td></td><td></td></tr>');
    expect(doc).toMatchObject({ format: 'csv', numPages: 1, metadata: { encoding: 'windows-1252', delimiter: ';' } });
    expect(toMarkdown(doc.html)).toContain('| name | note | price |\n| --- | --- | --- |\n| Smith; J. |');
  });

  it('pads ragged rows, escapes markup, and reads TSV with a BOM', async () => {
    const doc = await readCsv(new TextEncoder().encode('\ufeffa\tb\tc\n<x>\n1\t2\t3\t\n'), testOptions());
    expect(doc.html).toContain('<tr><td>&lt;x&gt;</td><td></td><td></td></tr>');
    expect(doc.metadata['delimiter']).toBe('tab');
  });

  it('enforces maxCells and the deadline', async () => {
    const big = new TextEncoder().encode('a,b,c\n'.repeat(100));
    const err = await rejection(readCsv(big, testOptions({ limits: { maxCells: 50 } })));
    expect(err.code).toBe('DOCUMENT_TOO_LARGE');
    expect(err.details).toMatchObject({ limit: 'cells' });
    expect((await rejection(readCsv(big, testOptions({ deadline: 0 })))).code).toBe('SCRAPE_TIMEOUT');
  });
});
