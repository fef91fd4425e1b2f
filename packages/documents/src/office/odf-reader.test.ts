import { describe, expect, it } from '@jest/globals';
import { fixture, rawZip, rejection, testOptions, toMarkdown } from './__fixtures__/test-helpers.js';
import { readOdf } from './odf-reader.js';

describe('readOdf', () => {
  it('reads an ODT: title, outline headings, spans, links, notes, nested lists, tables with spans, metadata', async () => {
    const doc = await readOdf('odt', fixture('notes.odt'), testOptions());
    const { html } = doc;
    expect(html).toContain('<h1>Field Notes</h1>\n<h1>Overview</h1>');
    expect(html).toContain('Plain text with <strong>bold</strong>, <em>italic</em>,');
    expect(html).toContain('<a href="https://example.com/odt">link</a>.<sup>[1]</sup><br>Second line &amp; more.');
    expect(html).toContain('<ul><li>Alpha<ul><li>Alpha one</li></ul></li><li>Beta</li></ul>');
    expect(html).toContain('<ol><li>First</li><li>Second</li></ol>');
    expect(html).toContain('<tr><th>Name</th><th>Count</th><th>Note</th></tr>');
    expect(html).toContain('<tr><td>Oak</td><td>3</td><td rowspan="2">Shared note</td></tr>');
    expect(html).toContain('<tr><td colspan="2">Spanning two</td></tr>');
    expect(html).toContain('<hr>\n<p>[1] A footnote.</p>');
    expect(doc).toMatchObject({
      format: 'odt', title: 'Field Notes', numPages: 2, totalPages: 2,
      metadata: { author: 'Mary Somerville', subject: 'Botany', keywords: 'trees, notes', language: 'en-US', created: '2024-01-02T03:04:05', modified: '2024-02-03T04:05:06' },
    });
    expect(toMarkdown(html)).toContain('## Lists\n\n- Alpha\n  - Alpha one');
  });

  it('reads an ODS: one table per visible sheet, dates as ISO, repeated empty cells cost nothing', async () => {
    const doc = await readOdf('ods', fixture('stock.ods'), testOptions({ limits: { maxCells: 20 } }));
    expect(doc.html).toContain('<h2>Inventory</h2>\n<table>\n<tr><th>Item</th><th>Count</th><th>Since</th></tr>\n<tr><td>Bolts &amp; nuts</td><td>1,500</td><td>2024-01-31</td></tr>\n<tr><td colspan="2">Spanning total</td><td>n/a</td></tr>\n</table>');
    expect(doc.html).not.toContain('hidden value');
    expect(doc).toMatchObject({ numPages: 1, totalPages: 2, warnings: ['Sheet "Secret" is hidden and was skipped.'] });
    const err = await rejection(readOdf('ods', fixture('stock.ods'), testOptions({ limits: { maxCells: 5 } })));
    expect(err.details).toMatchObject({ limit: 'cells' });
  });

  it('reads an ODP: a heading per page with its title, outline lists, no page numbers or speaker notes', async () => {
    const doc = await readOdf('odp', fixture('talk.odp'), testOptions());
    expect(doc.html).toContain('<h2>Slide 1: Hello ODP</h2>\n<ul><li>Point one<ul><li>Detail</li></ul></li><li>Point two</li></ul>\n<h2>Slide 2: Second</h2>\n<p>Closing words</p>');
    expect(doc.html).not.toMatch(/speaker notes|<p>1<\/p>/);
    expect(doc).toMatchObject({ numPages: 2, totalPages: 2 });
    const one = await readOdf('odp', fixture('talk.odp'), testOptions({ limits: { maxPages: 1 } }));
    expect(one).toMatchObject({ numPages: 1, totalPages: 2 });
    expect(one.html).not.toContain('Second');
  });

  it('reports encrypted packages and missing content', async () => {
    const manifest = '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml">' +
      '<manifest:encryption-data manifest:checksum-type="SHA1/1K"/></manifest:file-entry></manifest:manifest>';
    const encrypted = rawZip([{ name: 'mimetype', content: 'application/vnd.oasis.opendocument.text', method: 0 }, { name: 'META-INF/manifest.xml', content: manifest }, { name: 'content.xml', content: 'garbage' }]);
    expect((await rejection(readOdf('odt', encrypted, testOptions()))).code).toBe('DOCUMENT_ENCRYPTED');
    const empty = rawZip([{ name: 'mimetype', content: 'application/vnd.oasis.opendocument.text', method: 0 }]);
    expect((await rejection(readOdf('odt', empty, testOptions()))).code).toBe('DOCUMENT_CORRUPT');
  });
});
