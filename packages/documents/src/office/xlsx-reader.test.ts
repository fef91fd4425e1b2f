import { describe, expect, it } from '@jest/globals';
import { fixture, rawZip, rejection, testOptions, toMarkdown } from './__fixtures__/test-helpers.js';
import { readXlsx } from './xlsx-reader.js';
import { serialToIso, valueKind } from './xlsx-values.js';

const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** A one-sheet workbook with inline-string and number cells. */
function workbook(sheetData: string): Uint8Array {
  return rawZip([
    { name: 'xl/workbook.xml', content: `<workbook xmlns="${S}" xmlns:r="${R}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>` },
    { name: 'xl/_rels/workbook.xml.rels', content: `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${R}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>` },
    { name: 'xl/worksheets/sheet1.xml', content: `<worksheet xmlns="${S}"><sheetData>${sheetData}</sheetData></worksheet>` },
  ]);
}

describe('readXlsx', () => {
  it('reads sheets in order with typed values, merges and links; hidden sheets are skipped', async () => {
    const doc = await readXlsx(fixture('sales.xlsx'), testOptions());
    const { html } = doc;
    expect(html).toContain('<h2>Sales &amp; Costs</h2>');
    expect(html).toContain('<tr><th>Region</th><th>Amount</th><th>Date</th><th>When</th><th>Paid</th><th>Share</th></tr>');
    expect(html).toContain('<tr><td><a href="https://example.com/north">North</a></td><td>1234.5</td><td>2024-01-01</td><td>2024-01-01T12:00:00</td><td>TRUE</td><td>12.5%</td></tr>');
    expect(html).toContain('<tr><td>South</td><td>2469</td><td>inline &amp; string</td><td>#DIV/0!</td><td>yes</td><td>Rich &amp; &lt;escaped&gt;</td></tr>');
    expect(html).toContain('<tr><td colspan="2">Merged total</td><td>3703.5</td><td></td><td></td><td></td></tr>');
    expect(html).not.toContain('PHONETIC');
    expect(html).not.toContain('secret');
    expect(html).toContain('<h2>Notes</h2>');
    expect(html).toContain('<tr><td>0.3</td></tr>');
    expect(html.indexOf('Sales &amp; Costs')).toBeLessThan(html.indexOf('<h2>Notes</h2>'));
    expect(doc).toMatchObject({ format: 'xlsx', title: 'Sales Workbook', numPages: 2, totalPages: 3, metadata: { author: 'Grace Hopper' } });
    expect(doc.warnings).toEqual(['Sheet "Hidden" is hidden and was skipped.']);
    const md = toMarkdown(html);
    expect(md).toContain('## Sales & Costs');
    expect(md).toContain('| Region | Amount | Date | When | Paid | Share |\n| --- | --- | --- | --- | --- | --- |');
  });

  it('reads at most maxPages sheets', async () => {
    const doc = await readXlsx(fixture('sales.xlsx'), testOptions({ limits: { maxPages: 1 } }));
    expect(doc.numPages).toBe(1);
    expect(doc.html).not.toContain('Notes');
    expect(doc.warnings).toContain('Only the first 1 sheets were read.');
  });

  it('enforces maxCells on values and on the rendered table', async () => {
    const err = await rejection(readXlsx(fixture('sales.xlsx'), testOptions({ limits: { maxCells: 10 } })));
    expect(err.code).toBe('DOCUMENT_TOO_LARGE');
    expect(err.details).toMatchObject({ limit: 'cells' });
    // Two values far apart would render as a huge table: the dense size counts.
    const sparse = workbook('<row r="1"><c r="A1"><v>1</v></c></row><row r="900"><c r="AZ900"><v>2</v></c></row>');
    const ok = await readXlsx(sparse, testOptions({ limits: { maxCells: 10 } }));
    expect(ok.html).toContain('<tr><th>1</th><th></th></tr>');
    const wide = workbook('<row r="1"><c r="A1"><v>1</v></c><c r="B1"><v>1</v></c><c r="C1"><v>1</v></c></row><row r="2"><c r="D2"><v>2</v></c></row><row r="3"><c r="E3"><v>2</v></c></row>');
    expect((await rejection(readXlsx(wide, testOptions({ limits: { maxCells: 10 } })))).details).toMatchObject({ limit: 'cells' });
  });

  it('handles cells without references and drops empty rows and columns', async () => {
    const doc = await readXlsx(workbook('<row><c t="inlineStr"><is><t>a</t></is></c><c/><c><v>3</v></c></row><row/><row><c t="b"><v>0</v></c></row>'), testOptions());
    expect(doc.html).toContain('<tr><th>a</th><th>3</th></tr>\n<tr><td>FALSE</td><td></td></tr>');
  });

  it('throws SCRAPE_TIMEOUT past the deadline', async () => {
    expect((await rejection(readXlsx(fixture('sales.xlsx'), testOptions({ deadline: 0 })))).code).toBe('SCRAPE_TIMEOUT');
  });
});

describe('xlsx values', () => {
  it('classifies number formats', () => {
    expect(valueKind(14, undefined)).toBe('date');
    expect(valueKind(22, undefined)).toBe('datetime');
    expect(valueKind(20, undefined)).toBe('time');
    expect(valueKind(10, undefined)).toBe('percent');
    expect(valueKind(0, undefined)).toBe('number');
    expect(valueKind(164, 'dd/mm/yyyy')).toBe('date');
    expect(valueKind(165, '[$-409]mmmm d, yyyy;@')).toBe('date');
    expect(valueKind(166, 'h:mm AM/PM')).toBe('time');
    expect(valueKind(167, '[h]:mm:ss')).toBe('time');
    expect(valueKind(168, '"Day" 0')).toBe('number');
    expect(valueKind(169, '[Red]#,##0.00')).toBe('number');
    expect(valueKind(170, '0.0%')).toBe('percent');
    expect(valueKind(171, 'General')).toBe('number');
  });

  it('converts serial dates in both date systems', () => {
    expect(serialToIso(45292, 'date', false)).toBe('2024-01-01');
    expect(serialToIso(1, 'date', false)).toBe('1900-01-01');
    expect(serialToIso(61, 'date', false)).toBe('1900-03-01');
    expect(serialToIso(0, 'date', true)).toBe('1904-01-01');
    expect(serialToIso(0.75, 'time', false)).toBe('18:00:00');
    expect(serialToIso(-1, 'date', false)).toBeUndefined();
  });
});
