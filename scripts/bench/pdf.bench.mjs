#!/usr/bin/env node
// PDF text benchmark: our readPdf (fast mode: text layer + layout -> HTML) vs pdf-parse 2.4.5's getText()
// (the same pdf.js underneath, plain text in drawing order), on ../shared/corpora/pdf-parse.
//
//   pnpm --filter @trawl/documents... build && node scripts/bench/pdf.bench.mjs [--reps N]
//
// (a) speed: pages per second of each, runs interleaved file by file in one process (after a warm-up)
//     so machine noise hits both alike.
// (b) text quality: 4-word-shingle precision/recall/F1 against EXPECTED_TEXT_MAP.tsv's texts (the same
//     scoring as the article-extraction benchmarks: per-document multiset overlap, P and R averaged over
//     documents, F1 from the means). Our HTML is reduced to plain text first.
// pdf-parse's page separators ("-- 1 of 14 --") are removed from the expected texts and from its output.
// The password-protected file is read by pdf-parse with its password and by readPdf (which takes no
// password: it must throw DOCUMENT_ENCRYPTED); it is left out of both scores.
// Prints a markdown table and writes .bench/pdf.json.
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const corpus = join(process.env.CORPORA_DIR ?? join(root, '..', 'shared', 'corpora'), 'pdf-parse');
const args = process.argv.slice(2);
const repsAt = args.indexOf('--reps');
const REPS = repsAt >= 0 ? Number(args[repsAt + 1]) : 3;

const documents = join(root, 'packages', 'documents');
const { readPdf } = await import(pathToFileURL(join(documents, 'dist', 'pdf', 'index.js')).href);
const { TesseractOcrEngine, ocrEngineAvailable } = await import(pathToFileURL(join(documents, 'dist', 'ocr', 'index.js')).href);
const OCR_PAGES = 3;
const pdfParseCjs = createRequire(join(documents, 'package.json')).resolve('pdf-parse');
const { PDFParse } = await import(pathToFileURL(join(dirname(pdfParseCjs), '..', 'esm', 'index.js')).href);

// ---------- scoring ----------
const tokens = (text) => text.match(/[\p{L}\p{N}_]+/gu) ?? [];
function shingles(toks, n = 4) {
  const counts = new Map();
  const last = Math.max(1, toks.length - n + 1);
  for (let i = 0; i < last && toks.length; i++) {
    const key = toks.slice(i, i + n).join('\u0001');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
/** pdf-parse's page separators ("-- 3 of 14 --"): in its output and in the expected texts, not in the documents. */
const dropPageJoiners = (text) => text.replace(/^-- \d+ of \d+ --$/gm, '');
/** "com-\npile" -> "compile": applied to all texts for the "dehyphenated" score (we join such lines). */
const dehyphenate = (text) => text.replace(/(\p{L})-\n(\p{Ll})/gu, '$1$2');
/** Precision and recall of one document (shingle multisets), as the article-extraction benchmarks do. */
function prDoc(truth, pred, normalize = (t) => t) {
  const t = shingles(tokens(normalize(dropPageJoiners(truth))));
  const p = shingles(tokens(normalize(dropPageJoiners(pred))));
  let tp = 0, fp = 0, fn = 0;
  for (const [k, c] of p) {
    const ct = t.get(k) ?? 0;
    tp += Math.min(c, ct);
    fp += Math.max(0, c - ct);
  }
  for (const [k, c] of t) fn += Math.max(0, c - (p.get(k) ?? 0));
  const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
  return { precision, recall };
}
function corpusScore(docs) {
  const P = docs.reduce((s, d) => s + d.precision, 0) / docs.length;
  const R = docs.reduce((s, d) => s + d.recall, 0) / docs.length;
  return { precision: P, recall: R, f1: P + R === 0 ? 0 : (2 * P * R) / (P + R) };
}
const ENTITIES = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"' };
/** Our HTML -> plain text: the head dropped, block ends -> newlines, tags removed, entities decoded. */
const htmlToText = (html) =>
  html
    .replace(/<head>[\s\S]*?<\/head>/, '')
    .replace(/<\/(p|h[1-6]|li|tr|pre|table|ul|ol)>/g, '\n')
    .replace(/<\/t[dh]>/g, ' ')
    .replace(/<[^>]+>/g, '')
    .replace(/&(amp|lt|gt|quot);/g, (e) => ENTITIES[e]);

// ---------- the corpus ----------
const rows = readFileSync(join(corpus, 'EXPECTED_TEXT_MAP.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
const files = rows.map(([pdf, expected, , note]) => ({
  name: pdf.split('/').pop(),
  bytes: readFileSync(join(corpus, pdf)),
  expected: readFileSync(join(corpus, expected), 'utf8'),
  password: /password (\S+)/.exec(note ?? '')?.[1],
}));

const options = (pdfMode = 'fast', extra = {}) => ({
  ...extra,
  pdfMode,
  limits: { maxPages: 10_000, maxInflatedBytes: 1e10, maxCells: 1e7 },
  deadline: Date.now() + 600_000,
  signal: new AbortController().signal,
  ocrLanguages: ['eng'],
});
async function ours(file) {
  try {
    const doc = await readPdf(new Uint8Array(file.bytes), options());
    return { text: htmlToText(doc.html), pages: doc.numPages };
  } catch (err) {
    return { error: err.code ?? String(err), pages: 0 };
  }
}
async function baseline(file) {
  const parser = new PDFParse({ data: new Uint8Array(file.bytes), password: file.password });
  try {
    const result = await parser.getText();
    return { text: result.text, pages: result.total };
  } finally {
    await parser.destroy();
  }
}

const stats = { ours: { ms: 0, pages: 0 }, baseline: { ms: 0, pages: 0 } };
const outputs = new Map();
const timed = async (name, fn, file, record) => {
  const t0 = performance.now();
  const out = await fn(file);
  const ms = performance.now() - t0;
  if (record && !out.error) {
    stats[name].ms += ms;
    stats[name].pages += out.pages;
  }
  outputs.set(`${name}:${file.name}`, out);
};
for (const file of files) {
  await timed('ours', ours, file, false);
  await timed('baseline', baseline, file, false);
}
for (let rep = 0; rep < REPS; rep++) {
  for (const [i, file] of files.entries()) {
    // Alternate who goes first so caches and GC pauses do not favour one side.
    const order = (i + rep) % 2 === 0 ? ['ours', 'baseline'] : ['baseline', 'ours'];
    for (const name of order) await timed(name, name === 'ours' ? ours : baseline, file, !file.password);
  }
}

const perFile = files.map((file) => {
  const o = outputs.get(`ours:${file.name}`);
  const b = outputs.get(`baseline:${file.name}`);
  return {
    name: file.name,
    pages: b.pages,
    ours: o.error ? { error: o.error } : prDoc(file.expected, o.text),
    baseline: prDoc(file.expected, b.text),
    oursDehyphenated: o.error ? { error: o.error } : prDoc(file.expected, o.text, dehyphenate),
    baselineDehyphenated: prDoc(file.expected, b.text, dehyphenate),
  };
});
const scored = perFile.filter((f) => !f.ours.error);
const scoreOurs = corpusScore(scored.map((f) => f.ours));
const scoreBase = corpusScore(scored.map((f) => f.baseline));
const scoreOursD = corpusScore(scored.map((f) => f.oursDehyphenated));
const scoreBaseD = corpusScore(scored.map((f) => f.baselineDehyphenated));
const pps = (s) => s.pages / (s.ms / 1000);
const speed = { ours: pps(stats.ours), baseline: pps(stats.baseline) };
const f1 = (d) => (d.error ? d.error : ((2 * d.precision * d.recall) / (d.precision + d.recall || 1)).toFixed(3));
const f2 = (x) => x.toFixed(2), f3 = (x) => x.toFixed(3);
const table = [
  '| reader | text F1 (P / R) | pages/s |',
  '|---|---|---|',
  `| ours: readPdf fast (HTML -> text) | ${f3(scoreOurs.f1)} (${f3(scoreOurs.precision)} / ${f3(scoreOurs.recall)}) | ${f2(speed.ours)} |`,
  `| pdf-parse 2.4.5 getText() | ${f3(scoreBase.f1)} (${f3(scoreBase.precision)} / ${f3(scoreBase.recall)}) | ${f2(speed.baseline)} |`,
  '',
  `Dehyphenated texts (line-end hyphens joined in the expected text and both outputs): F1 ours ${f3(scoreOursD.f1)}, pdf-parse ${f3(scoreBaseD.f1)}.`,
  `Speed ratio ours / pdf-parse: **${f2(speed.ours / speed.baseline)}x** (${stats.ours.pages / REPS} pages, ${REPS} reps, interleaved); F1 ratio: **${f2(scoreOurs.f1 / scoreBase.f1)}x** on ${scored.length} files.`,
  '',
  '| file | pages | F1 ours | F1 pdf-parse |',
  '|---|---|---|---|',
  ...perFile.map((f) => `| ${f.name} | ${f.pages} | ${f1(f.ours)} | ${f1(f.baseline)} |`),
];
console.log(table.join('\n'));

// ---------- (c) OCR mode: the first pages of each file rendered and read by tesseract ----------
// Baseline: fast mode (text layer) on the same pages, in the same run. Expected texts are cut at
// pdf-parse's page separators, so both are scored against exactly the pages read.
const firstPages = (text, n) => {
  const at = [...text.matchAll(/^-- (\d+) of \d+ --$/gm)].find((m) => Number(m[1]) === n);
  return at ? text.slice(0, at.index) : text;
};
const ocrEngine = new TesseractOcrEngine({ binary: process.env.TRAWL_TESSERACT_PATH ?? '/usr/bin/tesseract', maxProcesses: 1 });
let ocr;
if (await ocrEngineAvailable(ocrEngine)) {
  const ocrStats = { ocr: { ms: 0, pages: 0 }, fast: { ms: 0, pages: 0 } };
  const ocrDocs = { ocr: [], fast: [] };
  for (const file of files.filter((f) => !f.password)) {
    const expected = firstPages(file.expected, OCR_PAGES);
    for (const mode of ['fast', 'ocr']) {
      const t0 = performance.now();
      const doc = await readPdf(new Uint8Array(file.bytes), { ...options(mode, { ocr: ocrEngine }), limits: { maxPages: OCR_PAGES, maxInflatedBytes: 1e10, maxCells: 1e7 } });
      ocrStats[mode].ms += performance.now() - t0;
      ocrStats[mode].pages += doc.numPages;
      ocrDocs[mode].push(prDoc(expected, htmlToText(doc.html), dehyphenate));
    }
  }
  const so = corpusScore(ocrDocs.ocr), sf = corpusScore(ocrDocs.fast);
  ocr = { pagesPerSec: pps(ocrStats.ocr), fastPagesPerSec: pps(ocrStats.fast), f1: so, fastF1: sf, pages: ocrStats.ocr.pages };
  console.log([
    '',
    `OCR mode (tesseract, 1 process, ~300 dpi), first ${OCR_PAGES} pages of each file (${ocr.pages} pages), dehyphenated scoring:`,
    '',
    '| mode | text F1 (P / R) | pages/s |',
    '|---|---|---|',
    `| ocr | ${f3(so.f1)} (${f3(so.precision)} / ${f3(so.recall)}) | ${f2(ocr.pagesPerSec)} |`,
    `| fast (same pages) | ${f3(sf.f1)} (${f3(sf.precision)} / ${f3(sf.recall)}) | ${f2(ocr.fastPagesPerSec)} |`,
    '',
    `OCR speed / fast speed: **${(ocr.pagesPerSec / ocr.fastPagesPerSec).toFixed(3)}x**; OCR F1 / fast F1: **${f2(so.f1 / sf.f1)}x**.`,
  ].join('\n'));
} else {
  console.log('\nOCR mode skipped: no tesseract (apt-get install tesseract-ocr)');
}
mkdirSync(join(root, '.bench'), { recursive: true });
writeFileSync(join(root, '.bench', 'pdf.json'), JSON.stringify({ date: new Date().toISOString(), node: process.version, reps: REPS, speed, stats, f1: { ours: scoreOurs, baseline: scoreBase, oursDehyphenated: scoreOursD, baselineDehyphenated: scoreBaseD }, perFile, ocr }, null, 2));
console.log(`\nwrote ${join('.bench', 'pdf.json')}`);
