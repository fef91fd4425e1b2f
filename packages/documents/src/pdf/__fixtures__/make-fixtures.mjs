#!/usr/bin/env node
// Generates the PDF fixtures of the PDF reader's tests; the .pdf files are committed, so tests never
// need Chromium. Run from anywhere: node packages/documents/src/pdf/__fixtures__/make-fixtures.mjs
//
//   text.pdf         headings, paragraphs, bulleted and numbered lists, a table, a link, a code block
//   two-column.pdf   a full-width title above two justified columns
//   multipage.pdf    12 pages with a running header and "Page N of 12" footers
//   rtl.pdf          Arabic and Hebrew paragraphs (only when fc-list finds fonts for them)
//   image-page.pdf   page 1 text, page 2 only an image of text (no text layer)
//   truncated.pdf    the first half of text.pdf
//   encrypted.pdf    RC4 128-bit (Standard Security Handler R3), user password "secret"
//   owner-only.pdf   the same encryption with an empty user password (opens without one)
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
// playwright-core is a dependency of @trawl/browser, resolved from its folder.
const require = createRequire(join(here, '..', '..', '..', '..', 'browser', 'package.json'));
const { chromium } = require('playwright-core');

const LOREM = [
  'Trawl reads documents the way a careful person would, line after line and column after column.',
  'Every paragraph in this fixture is long enough to wrap over several lines of the printed page.',
  'The layout step joins those lines again, so the text reads as it was written before printing.',
];
const para = (n) => `<p>${Array.from({ length: n }, (_, i) => LOREM[i % LOREM.length]).join(' ')}</p>`;

const TEXT_HTML = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Fixture Text Document</title>
<style>body{font-family:'DejaVu Sans',sans-serif;font-size:11pt} td,th{padding:4px 18px;text-align:left} table{border-collapse:collapse}
pre{font-family:'DejaVu Sans Mono',monospace;font-size:10pt}</style></head><body>
<h1>Quarterly Fixture Report</h1>
${para(3)}
<h2>Findings of the Survey</h2>
${para(2)}
<p>Read the <a href="https://example.com/docs/manual">online manual</a> for more details.</p>
<ul style="list-style-type:'• '"><li>First bullet point about apples</li><li>Second bullet point about pears</li><li>Third bullet point about plums</li></ul>
<ol><li>Open the archive</li><li>Read the index</li><li>Close the archive</li></ol>
<h2>Prices Table</h2>
<table><tr><th>Fruit</th><th>Quantity</th><th>Price</th></tr><tr><td>Apple</td><td>3</td><td>1.20</td></tr><tr><td>Banana</td><td>12</td><td>0.25</td></tr><tr><td>Cherry</td><td>200</td><td>9.99</td></tr></table>
<h2>Code Sample</h2>
<pre>function greet(name) {
  return 'hello ' + name;
}</pre>
${para(1)}
</body></html>`;

const COLUMN_PARAS = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo', 'Foxtrot'];
const TWO_COLUMN_HTML = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Two Columns</title>
<style>body{font-family:'DejaVu Serif',serif;font-size:10pt} .cols{column-count:2;column-gap:3em;text-align:justify}</style></head><body>
<h1 style="text-align:center">A Title Spanning Both Columns</h1>
<div class="cols">${COLUMN_PARAS.map((w) => `<p>${w} paragraph begins here. ${LOREM.join(' ')} ${w} paragraph ends here.</p>`).join('\n')}</div>
</body></html>`;

const MULTIPAGE_HTML = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Twelve Pages</title>
<style>body{font-family:'DejaVu Sans',sans-serif;font-size:11pt} section{page-break-after:always}</style></head><body>
${Array.from({ length: 12 }, (_, i) => `<section><h2>Chapter ${i + 1}</h2><p>This is the body of chapter ${i + 1}. ${LOREM[i % 3]}</p></section>`).join('\n')}
</body></html>`;

const RTL_HTML = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>RTL</title>
<style>body{font-family:'DejaVu Sans',sans-serif;font-size:14pt}</style></head><body>
<p dir="rtl" lang="ar">مرحبا بالعالم هذا نص عربي</p>
<p dir="rtl" lang="he">שלום עולם זה טקסט בעברית</p>
<p>English text after the right-to-left paragraphs.</p>
</body></html>`;

function fontsFor(lang) {
  try {
    return execFileSync('fc-list', [`:lang=${lang}`, 'family'], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return false;
  }
}

// ---------- RC4 and the Standard Security Handler (PDF 1.7, 7.6.3, revision 3, 128-bit key) ----------
const PAD = Buffer.from('28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A', 'hex');
const md5 = (...parts) => createHash('md5').update(Buffer.concat(parts)).digest();

function rc4(key, data) {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i] + key[i % key.length]) & 255;
    [s[i], s[j]] = [s[j], s[i]];
  }
  const out = Buffer.alloc(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 255;
    j = (j + s[i]) & 255;
    [s[i], s[j]] = [s[j], s[i]];
    out[n] = data[n] ^ s[(s[i] + s[j]) & 255];
  }
  return out;
}
const padPassword = (pw) => Buffer.concat([Buffer.from(pw, 'latin1'), PAD]).subarray(0, 32);
/** RC4 with the key, then 19 more passes with the key's bytes XORed with the pass number (R3). */
function rc4Rounds(key, data) {
  let out = rc4(key, data);
  for (let i = 1; i <= 19; i++) out = rc4(Buffer.from(key.map((b) => b ^ i)), out);
  return out;
}

/** Algorithm 3: the O entry. */
function ownerEntry(ownerPw, userPw) {
  let h = md5(padPassword(ownerPw || userPw));
  for (let i = 0; i < 50; i++) h = md5(h);
  return rc4Rounds(h.subarray(0, 16), padPassword(userPw));
}
/** Algorithm 2: the file key. */
function fileKey(userPw, o, p, id) {
  const pBytes = Buffer.alloc(4);
  pBytes.writeInt32LE(p);
  let h = md5(padPassword(userPw), o, pBytes, id);
  for (let i = 0; i < 50; i++) h = md5(h.subarray(0, 16));
  return h.subarray(0, 16);
}
/** Algorithm 5: the U entry (16 bytes of hash, 16 arbitrary bytes). */
const userEntry = (key, id) => Buffer.concat([rc4Rounds(key, md5(PAD, id)), Buffer.alloc(16)]);
/** Algorithm 1: the key of one object. */
function objectKey(key, num, gen) {
  const suffix = Buffer.from([num & 255, (num >> 8) & 255, (num >> 16) & 255, gen & 255, (gen >> 8) & 255]);
  return md5(key, suffix).subarray(0, Math.min(key.length + 5, 16));
}

/** A one-page PDF with Helvetica text, encrypted with RC4 128-bit for `userPw` / `ownerPw`. */
function encryptedPdf(text, userPw, ownerPw) {
  const id = md5(Buffer.from(`trawl-fixture-${userPw}-${ownerPw}`));
  const p = -3904; // print and copy allowed; the value only needs to be consistent
  const o = ownerEntry(ownerPw, userPw);
  const key = fileKey(userPw, o, p, id);
  const u = userEntry(key, id);
  const content = Buffer.from(`BT /F1 24 Tf 72 700 Td (${text}) Tj ET`, 'latin1');
  const stream = rc4(objectKey(key, 4, 0), content);
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    Buffer.concat([Buffer.from(`<< /Length ${stream.length} >>\nstream\n`, 'latin1'), stream, Buffer.from('\nendstream', 'latin1')]),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Filter /Standard /V 2 /R 3 /Length 128 /P ${p} /O <${o.toString('hex')}> /U <${u.toString('hex')}> >>`,
  ];
  const chunks = [Buffer.from('%PDF-1.4\n%\xE2\xE3\xCF\xD3\n', 'latin1')];
  let offset = chunks[0].length;
  const offsets = [];
  objects.forEach((body, i) => {
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'), Buffer.from('\nendobj\n', 'latin1')]);
    offsets.push(offset);
    chunks.push(obj);
    offset += obj.length;
  });
  const xref = ['xref', `0 ${objects.length + 1}`, '0000000000 65535 f ', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `)].join('\n');
  const trailer = `\ntrailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 6 0 R /ID [<${id.toString('hex')}> <${id.toString('hex')}>] >>\nstartxref\n${offset}\n%%EOF\n`;
  chunks.push(Buffer.from(xref + trailer, 'latin1'));
  return Buffer.concat(chunks);
}

// ---------- Chromium ----------
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  const print = async (name, html, extra = {}) => {
    await page.setContent(html, { waitUntil: 'load' });
    const pdf = await page.pdf({ format: 'Letter', margin: { top: '0.8in', bottom: '0.8in', left: '0.8in', right: '0.8in' }, ...extra });
    writeFileSync(join(here, name), pdf);
    process.stdout.write(`${name}: ${pdf.length} bytes\n`);
    return pdf;
  };
  const text = await print('text.pdf', TEXT_HTML);
  await print('two-column.pdf', TWO_COLUMN_HTML);
  await print('multipage.pdf', MULTIPAGE_HTML, {
    displayHeaderFooter: true,
    headerTemplate: '<div style="font-size:8pt;width:100%;text-align:center">Trawl Fixture Handbook</div>',
    footerTemplate: '<div style="font-size:8pt;width:100%;text-align:center">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
  });
  if (fontsFor('ar') && fontsFor('he')) await print('rtl.pdf', RTL_HTML);
  else process.stdout.write('rtl.pdf: skipped (no Arabic or Hebrew font)\n');

  // An image of text: a screenshot, printed as the only content of page 2.
  await page.setViewportSize({ width: 900, height: 200 });
  await page.setContent('<body style="margin:0;background:#fff"><div id="t" style="font:40px sans-serif;padding:30px">SCANNED WORDS ONLY</div></body>');
  const png = await page.locator('#t').screenshot({ type: 'png' });
  await print('image-page.pdf', `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Image Page</title></head><body style="font-family:sans-serif">
<p>The first page has a text layer with enough words to read.</p>
<div style="page-break-before:always"><img style="width:6in" src="data:image/png;base64,${png.toString('base64')}"></div></body></html>`);

  writeFileSync(join(here, 'truncated.pdf'), text.subarray(0, Math.floor(text.length / 2)));
  process.stdout.write('truncated.pdf: written\n');
} finally {
  await browser.close();
}
writeFileSync(join(here, 'encrypted.pdf'), encryptedPdf('Secret text inside', 'secret', 'owner-pw'));
writeFileSync(join(here, 'owner-only.pdf'), encryptedPdf('Owner protected text', '', 'owner-pw'));
process.stdout.write('encrypted.pdf, owner-only.pdf: written\n');
