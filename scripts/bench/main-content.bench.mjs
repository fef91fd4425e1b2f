#!/usr/bin/env node
// Main-content extraction benchmark: quality (corpus scorers) and speed of
//   ours       packages/html built dist: parseHtml -> cleanHtml -> extractMainContent -> domToText
//   readability  Mozilla Readability 0.6 over linkedom (textContent of the article)
//   denylist   CSS-selector denylist of boilerplate (header, footer, nav, aside, .sidebar, .ad, ...) then body text
// and of the whole html -> markdown pipeline:
//   pipeline   runHtmlPipeline(html, {formats: {markdown: true}, onlyMainContent: true})
//   baseline   denylist + turndown 7 with turndown-plugin-gfm (what other self-hosted systems do)
// Run `pnpm --filter @trawl/html build` first.
// usage: node scripts/bench/main-content.bench.mjs [--limit N] [--corpus trafilatura|readability] [--keep]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CORPORA = path.resolve(ROOT, '../shared/corpora');
const PKG = path.join(ROOT, 'packages/html');
const require = createRequire(path.join(PKG, 'package.json'));
const importPkg = async (name) => import(pathToFileURL(require.resolve(name)).href);

const args = process.argv.slice(2);
const opt = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const limit = opt('--limit') ? Number.parseInt(opt('--limit'), 10) : Infinity;
const onlyCorpus = opt('--corpus');
const keep = args.includes('--keep');

const html = await import(pathToFileURL(path.join(PKG, 'dist/index.js')).href);
const { parseHTML } = await import(pathToFileURL(path.join(PKG, 'node_modules/linkedom/esm/index.js')).href);
const { Readability } = require('@mozilla/readability');
const TurndownService = require('turndown');
const { gfm } = require('turndown-plugin-gfm');
const { selectAll } = await importPkg('css-select');
const renderMod = await importPkg('dom-serializer');
const render = renderMod.render ?? renderMod.default;

const DENYLIST = [
  'header', 'footer', 'nav', 'aside', '.header', '.top', '.navbar', '#header', '.footer', '#footer', '.bottom',
  '.sidebar', '.side', '.aside', '#sidebar', '.modal', '.popup', '#modal', '.overlay', '.ad', '.ads', '.advert',
  '#ad', '.lang-selector', '.language', '#language-selector', '.social', '.social-media', '.social-links',
  '#social-media', '.menu', '.navigation', '#nav', '.breadcrumbs', '#breadcrumbs', '.share', '#share', '.widget',
  '#widget', '.cookie', '#cookie', '.banner', '#comments', '.comments',
].join(',');

// ------------------------------------------------------------------ corpus loading
// Pages are decoded as UTF-8 when they are valid UTF-8 (many saved pages keep a stale charset
// declaration), else with their declared charset, else windows-1252.
function decode(buf) {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    const head = buf.subarray(0, 4096).toString('latin1');
    const m = /<meta[^>]+charset\s*=\s*["']?\s*([\w-]+)/i.exec(head);
    try {
      return new TextDecoder(m ? m[1].toLowerCase() : 'windows-1252').decode(buf);
    } catch {
      return new TextDecoder('windows-1252').decode(buf);
    }
  }
}

function loadTrafilatura() {
  const dir = path.join(CORPORA, 'trafilatura-eval');
  const evaldata = JSON.parse(fs.readFileSync(path.join(dir, 'evaldata.json'), 'utf8'));
  const pages = [];
  for (const [url, item] of Object.entries(evaldata)) {
    const cached = path.join(dir, 'cache', item.file);
    const file = fs.existsSync(cached) ? cached : path.join(dir, 'eval', item.file);
    if (!fs.existsSync(file)) continue;
    pages.push({ id: url, url, file });
    if (pages.length >= limit) break;
  }
  return { name: 'trafilatura-eval', pages, evalFile: path.join(dir, 'evaldata.json'), evaldata };
}

function loadReadability() {
  const dir = path.join(CORPORA, 'readability');
  const truth = JSON.parse(fs.readFileSync(path.join(dir, 'ground-truth.json'), 'utf8'));
  const pages = Object.keys(truth).slice(0, limit).map((id) => ({
    id, url: 'http://fakehost/test/page.html', file: path.join(dir, 'test-pages', id, 'source.html'),
  }));
  return { name: 'readability', pages, truthFile: path.join(dir, 'ground-truth.json'), truth };
}

// ------------------------------------------------------------------ extractors
const extractors = {
  ours(source, url) {
    const doc = html.parseHtml(source);
    const body = html.cleanHtml(doc, { baseUrl: html.resolveBaseUrl(doc, url) });
    return html.domToText(html.extractMainContent(body).root);
  },
  readability(source) {
    const { document } = parseHTML(source);
    const article = new Readability(document).parse();
    return article?.textContent ?? '';
  },
  denylist(source) {
    const doc = html.parseHtml(source);
    for (const el of selectAll(DENYLIST, doc)) removeEl(el);
    return html.domToText(doc);
  },
};

function removeEl(el) {
  const p = el.parent;
  if (!p) return;
  const i = p.children.indexOf(el);
  if (i >= 0) p.children.splice(i, 1);
  if (el.prev) el.prev.next = el.next;
  if (el.next) el.next.prev = el.prev;
  el.parent = null;
}

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
turndown.use(gfm);
const pipelines = {
  pipeline(source, url) {
    return html.runHtmlPipeline(source, { url, formats: { markdown: true }, onlyMainContent: true }).markdown;
  },
  baseline(source) {
    const doc = html.parseHtml(source);
    for (const el of selectAll('script,style,noscript,head,meta,' + DENYLIST, doc)) removeEl(el);
    return turndown.turndown(render(doc));
  },
};

// ------------------------------------------------------------------ runner
function runAll(corpus, fns) {
  const stats = Object.fromEntries(Object.keys(fns).map((k) => [k, { ms: 0, bytes: 0, pages: 0, failures: 0, failed: [], slowest: { ms: 0, id: '' }, preds: {} }]));
  for (const page of corpus.pages) {
    const source = decode(fs.readFileSync(page.file));
    const bytes = Buffer.byteLength(source);
    for (const [name, fn] of Object.entries(fns)) {
      const st = stats[name];
      const t0 = performance.now();
      let out = '';
      try {
        out = fn(source, page.url) ?? '';
      } catch (err) {
        st.failures++;
        if (st.failed.length < 10) st.failed.push(`${page.id}: ${String(err?.message ?? err).slice(0, 120)}`);
      }
      const ms = performance.now() - t0;
      st.ms += ms; st.bytes += bytes; st.pages++;
      if (ms > st.slowest.ms) st.slowest = { ms, id: page.id };
      st.preds[page.id] = out;
    }
  }
  return stats;
}

function score(corpus, preds, tmp, name) {
  const file = path.join(tmp, `${corpus.name}-${name}.json`);
  if (corpus.evalFile) {
    // Score against the subset actually run (--limit) so precision and recall are comparable.
    const evalSubset = path.join(tmp, `${corpus.name}-evaldata.json`);
    if (!fs.existsSync(evalSubset)) {
      fs.writeFileSync(evalSubset, JSON.stringify(Object.fromEntries(corpus.pages.map((p) => [p.id, corpus.evaldata[p.id]]))));
    }
    fs.writeFileSync(file, JSON.stringify(preds));
    const out = execFileSync('node', [path.join(CORPORA, 'score_snippets.mjs'), evalSubset, file], { encoding: 'utf8' });
    return JSON.parse(out.trim().split('\n').pop());
  }
  const truthSubset = path.join(tmp, `${corpus.name}-truth.json`);
  if (!fs.existsSync(truthSubset)) {
    fs.writeFileSync(truthSubset, JSON.stringify(Object.fromEntries(corpus.pages.map((p) => [p.id, corpus.truth[p.id]]))));
  }
  fs.writeFileSync(file, JSON.stringify(Object.fromEntries(Object.entries(preds).map(([k, v]) => [k, { articleBody: v }]))));
  const out = execFileSync('node', [path.join(CORPORA, 'score_text_f1.mjs'), '--pred', file, '--truth', truthSubset, '--json'], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop());
}

/** Pages whose output is empty (no word) while their reference holds content: a reader sees nothing. */
function emptyWithReference(corpus, preds) {
  let n = 0;
  for (const page of corpus.pages) {
    const ref = corpus.evaldata ? corpus.evaldata[page.id].with.join(' ') : corpus.truth[page.id]?.articleBody ?? '';
    if (/\w/u.test(ref) && !/[\p{L}\p{N}]/u.test(preds[page.id] ?? '')) n++;
  }
  return n;
}

const f3 = (x) => (typeof x === 'number' && Number.isFinite(x) ? x.toFixed(3) : '-');
const f1d = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const speed = (st) => ({ pagesPerSec: st.pages / (st.ms / 1000), mbPerSec: st.bytes / 1e6 / (st.ms / 1000) });

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trawl-main-content-'));
const report = { date: new Date().toISOString(), limit: Number.isFinite(limit) ? limit : null, corpora: {} };
const lines = ['| corpus | method | F1 | precision | recall | pages/s | MB/s | speed vs baseline | failures | slowest page ms |', '|---|---|---|---|---|---|---|---|---|---|'];
const corpora = [];
const emptyLines = [];
if (!onlyCorpus || onlyCorpus.startsWith('trafilatura')) corpora.push(loadTrafilatura());
if (!onlyCorpus || onlyCorpus.startsWith('readability')) corpora.push(loadReadability());
for (const corpus of corpora) {
  const q = runAll(corpus, extractors);
  const p = runAll(corpus, pipelines);
  const entry = {};
  const deny = speed(q.denylist);
  for (const [name, st] of Object.entries(q)) {
    const s = score(corpus, st.preds, tmp, name);
    const sp = speed(st);
    const empty = emptyWithReference(corpus, st.preds);
    entry[name] = { ...s, ...sp, emptyWithReference: empty, failures: st.failures, failed: st.failed, slowest: st.slowest };
    emptyLines.push(`${corpus.name} ${name}: ${empty} page(s) empty while the reference is not`);
    lines.push(`| ${corpus.name} | ${name} | ${f3(s.f1)} | ${f3(s.precision)} | ${f3(s.recall)} | ${f1d(sp.pagesPerSec)} | ${f3(sp.mbPerSec)} | ${(sp.pagesPerSec / deny.pagesPerSec).toFixed(2)}x (vs denylist) | ${st.failures} | ${f1d(st.slowest.ms)} |`);
  }
  const base = speed(p.baseline);
  for (const [name, st] of Object.entries(p)) {
    const sp = speed(st);
    entry[`${name}Markdown`] = { ...sp, failures: st.failures, failed: st.failed, slowest: st.slowest };
    lines.push(`| ${corpus.name} | ${name === 'pipeline' ? 'pipeline (clean+main+markdown)' : 'baseline (denylist+turndown+gfm)'} | | | | ${f1d(sp.pagesPerSec)} | ${f3(sp.mbPerSec)} | ${(sp.pagesPerSec / base.pagesPerSec).toFixed(2)}x (vs baseline) | ${st.failures} | ${f1d(st.slowest.ms)} |`);
  }
  entry.pages = corpus.pages.length;
  report.corpora[corpus.name] = entry;
  if (!keep) for (const f of fs.readdirSync(tmp)) if (f.startsWith(corpus.name)) fs.rmSync(path.join(tmp, f));
}
console.log(lines.join('\n'));
console.log(emptyLines.join('\n'));
for (const [name, c] of Object.entries(report.corpora)) {
  for (const [m, e] of Object.entries(c)) if (e.failed?.length) console.log(`${name} ${m} failures: ${e.failed.join(' | ')}`);
}
fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
fs.writeFileSync(path.join(ROOT, '.bench/main-content.json'), JSON.stringify(report, null, 2));
if (keep) console.log(`predictions kept in ${tmp}`); else fs.rmSync(tmp, { recursive: true, force: true });
