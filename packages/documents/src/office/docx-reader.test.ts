import { describe, expect, it } from '@jest/globals';
import { fixture, ole2, rawZip, rejection, testOptions, toMarkdown } from './__fixtures__/test-helpers.js';
import { readDocx } from './docx-reader.js';

describe('readDocx', () => {
  it('reads headings, inline formatting, links, lists, tables, code and footnotes', async () => {
    const doc = await readDocx(fixture('report.docx'), testOptions());
    const { html } = doc;
    expect(html).toContain('<html lang="en-GB">');
    expect(html).toContain('<title>Quarterly Report</title>');
    expect(html).toContain('<h1>Quarterly Report</h1>');
    expect(html).toContain('<h1>Introduction</h1>');
    expect(html).toContain('<h2>Results</h2>');
    expect(html).toContain('<h3>Custom outline heading</h3>');
    expect(html).toContain('<strong>This is bold</strong> and <em>this is italic</em>, then <strong><em>bold italic</em></strong> &amp; &lt;escaped&gt; text.');
    expect(html).toContain('<a href="https://example.com/docs?a=1&amp;b=2">documentation</a>');
    expect(html).toContain('<a href="https://example.org/field">field link</a>');
    expect(html).not.toContain('javascript:');
    expect(html).toContain('a script link');
    expect(html).toContain('First line<br>second line after a tab');
    expect(html).toContain('<ul><li>Apples<ul><li>Green apples</li><li>Red apples</li></ul></li><li>Pears</li></ul>');
    expect(html).toContain('<ol><li>Open the box<ol><li>Carefully</li></ol></li><li>Use the <strong>contents</strong></li></ol>');
    expect(html).toContain('<tr><th>Region</th><th>Q1</th><th>Q2</th></tr>');
    expect(html).toContain('<tr><td rowspan="2">North</td><td>10</td><td>12</td></tr>');
    expect(html).toContain('<tr><td>11</td><td>13</td></tr>');
    expect(html).toContain('<tr><td colspan="2">Total (both quarters)</td><td>46</td></tr>');
    expect(html).toContain('<pre><code>const x = 1;\nif (x &lt; 2) return;</code></pre>');
    expect(html).toContain('<sup>[1]</sup>');
    expect(html).toContain('<p>[1] Figures are unaudited.</p>');
    expect(doc).toMatchObject({
      format: 'docx',
      title: 'Quarterly Report',
      metadata: { author: 'Ada Lovelace', subject: 'Finance', keywords: 'report, quarterly', created: '2024-01-15T09:30:00Z', modified: '2024-02-20T16:45:00Z', language: 'en-GB' },
      numPages: 3,
      totalPages: 3,
      ocrPages: 0,
      warnings: [],
    });
  });

  it('comes out of the HTML pipeline as clean markdown', async () => {
    const md = toMarkdown((await readDocx(fixture('report.docx'), testOptions())).html);
    expect(md).toContain('# Quarterly Report\n');
    expect(md).toContain('## Results\n');
    expect(md).toContain('**This is bold** and *this is italic*');
    expect(md).toContain('[documentation](https://example.com/docs?a=1&b=2)');
    expect(md).toMatch(/^- Apples\n {2}- Green apples\n {2}- Red apples$/m);
    expect(md).toMatch(/^1\. Open the box\n {3}1\. Carefully$/m);
    expect(md).toContain('| Region | Q1 | Q2 |\n| --- | --- | --- |\n| North | 10 | 12 |');
    expect(md).toContain('```\nconst x = 1;\nif (x < 2) return;\n```');
  });

  it('works without styles, numbering or properties (numPages 1)', async () => {
    const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
    const bytes = rawZip([{
      name: 'word/document.xml',
      content: `<w:document xmlns:w="${W}"><w:body><w:p><w:pPr><w:pStyle w:val="Heading2"/></w:pPr><w:r><w:t>Bare</w:t></w:r></w:p>` +
        `<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="5"/></w:numPr></w:pPr><w:r><w:t>item</w:t></w:r><w:r><w:rPr><w:vanish/></w:rPr><w:t>hidden</w:t></w:r></w:p></w:body></w:document>`,
    }]);
    const doc = await readDocx(bytes, testOptions());
    expect(doc.html).toContain('<h2>Bare</h2>');
    expect(doc.html).toContain('<ul><li>item</li></ul>');
    expect(doc.numPages).toBe(1);
    expect(doc.totalPages).toBeUndefined();
    expect(doc.title).toBeUndefined();
  });

  it('keeps what it can read of malformed XML and says so in warnings', async () => {
    const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
    const bytes = rawZip([{ name: 'word/document.xml', content: `<w:document xmlns:w="${W}"><w:body><w:p><w:r><w:t>kept &bogus; text</w:t></w:r></w:p><x:p>unbound</x:p></w:body>` }]);
    const doc = await readDocx(bytes, testOptions());
    expect(doc.html).toContain('kept');
    expect(doc.warnings.length).toBeGreaterThan(0);
    expect(doc.warnings[0]).toMatch(/^XML error in word\/document\.xml/);
  });

  it('reports a truncated file as DOCUMENT_CORRUPT', async () => {
    const bytes = fixture('report.docx');
    const err = await rejection(readDocx(bytes.subarray(0, Math.floor(bytes.length / 2)), testOptions()));
    expect(err.code).toBe('DOCUMENT_CORRUPT');
    expect(err.details).toMatchObject({ format: 'docx' });
  });

  it('reports a password-protected file as DOCUMENT_ENCRYPTED and a legacy .doc as DOCUMENT_CORRUPT', async () => {
    expect((await rejection(readDocx(ole2(true), testOptions()))).code).toBe('DOCUMENT_ENCRYPTED');
    expect((await rejection(readDocx(ole2(false), testOptions()))).code).toBe('DOCUMENT_CORRUPT');
  });

  it('stops a document.xml bomb at maxInflatedBytes', async () => {
    const body = `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${'<w:p/>'.repeat(2_000_000)}</w:body></w:document>`;
    const err = await rejection(readDocx(rawZip([{ name: 'word/document.xml', content: body, declaredSize: 100 }]), testOptions({ limits: { maxInflatedBytes: 1_000_000 } })));
    expect(err.code).toBe('DOCUMENT_TOO_LARGE');
    expect(err.details).toMatchObject({ limit: 'inflatedBytes' });
  });

  it('throws SCRAPE_TIMEOUT once the deadline is past, also in the middle of the body', async () => {
    expect((await rejection(readDocx(fixture('report.docx'), testOptions({ deadline: 0 })))).code).toBe('SCRAPE_TIMEOUT');
    const body = `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${'<w:p><w:r><w:t>x</w:t></w:r></w:p>'.repeat(50_000)}</w:body></w:document>`;
    let calls = 0;
    // The clock passes the deadline after a few reads: only checks inside the XML stream can notice.
    const err = await rejection(readDocx(rawZip([{ name: 'word/document.xml', content: body }]), testOptions({ deadline: 1000, now: () => (++calls > 3 ? 2000 : 0) })));
    expect(err.code).toBe('SCRAPE_TIMEOUT');
  });
});
