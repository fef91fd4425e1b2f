#!/usr/bin/env node
// HTML -> markdown benchmark: ours (@trawl/html, built) vs turndown 7 + turndown-plugin-gfm (domino parser).
//
//   pnpm --filter @trawl/html build && node scripts/bench/markdown.bench.mjs [--sample N] [--reps N]
//
// (a) correctness on ../shared/corpora/markdown/all_cases.jsonl: each suite encodes its own library's style,
//     so outputs are compared by structure (sequence of block kinds) and text (bag of words), not bytes.
//     Structure is read three ways, each printed for both converters: from a CommonMark parse (markdown-it;
//     primary figure); by the line-regex reader with its CommonMark misreads fixed (structureLinesCm: list
//     nesting by content column, indented code, fences closed only by their own kind, nested items on one
//     line, wrapped quote lines as one block); and by the original line-regex reader (structureLines, the
//     one issue 21's 0.914 was measured with; it reads a two-space-indented top-level list as nested and
//     indented code as paragraphs). `--correctness-only` runs only this part; env MD_DUMP_CASES=<file>
//     writes every case's scores.
// (b) throughput on real pages: readability/test-pages/*/source.html plus a sample of trafilatura-eval.
//     Both converters get the same HTML strings; ours includes its own parse. Runs interleave page by
//     page in one process so machine noise hits both alike.
// (c) emphasis that does not parse: every markdown case, and every readability / trafilatura-eval page through
//     the whole pipeline (runHtmlPipeline, markdown format), is parsed with markdown-it (CommonMark + GFM
//     tables); a page counts when a text node of the parse still holds an unescaped `*` run or a `__` run
//     at a word edge: emphasis markers the parser did not read as emphasis (escaped characters are
//     separate tokens and do not count). `--literals-only` runs only this part.
// Prints a markdown table and writes .bench/markdown.json. Env MD_DIST overrides the converter module path.
import { createRequire } from 'node:module';
import { mkdirSync, readdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { join, dirname, basename } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const corpora = process.env.CORPORA_DIR ?? join(root, '..', 'shared', 'corpora');
const args = process.argv.slice(2);
const argValue = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : dflt;
};
const SAMPLE = argValue('--sample', 120);
const LITERALS_ONLY = args.includes('--literals-only');
const REPS = argValue('--reps', 2);

const distPath = process.env.MD_DIST ?? join(root, 'packages', 'html', 'dist', 'markdown', 'index.js');
const { htmlToMarkdown } = await import(pathToFileURL(distPath).href);
const requireHtml = createRequire(join(root, 'packages', 'html', 'package.json'));
const TurndownService = requireHtml('turndown');
const { gfm } = requireHtml('turndown-plugin-gfm');

function makeTurndown() {
  const td = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  td.use(gfm);
  return td;
}
const turndown = makeTurndown();
const MarkdownIt = requireHtml('markdown-it');
const { runHtmlPipeline } = await import(pathToFileURL(join(dirname(distPath), '..', 'index.js')).href);

// ---------- (a) correctness ----------
// Two structure readers. `structureLines` (the original metric, kept as a second column) reads block kinds
// off line prefixes with regexes; it misreads valid CommonMark written in another style (a top-level list
// indented by two spaces reads as nested, a 4-space indented code block reads as paragraphs, a setext
// heading after a list item...). `structureParsed` (the primary metric) reads them from a CommonMark + GFM
// table parse (markdown-it), so the same document written in different valid styles scores alike.
function structureLines(md) {
  const tags = [];
  let inCode = false;
  let prevText = false;
  for (const raw of md.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.replace(/\s+$/, '');
    if (/^\s*(```|~~~)/.test(line)) { inCode = !inCode; tags.push(inCode ? 'code' : 'endcode'); prevText = false; continue; }
    if (inCode) { tags.push('c'); continue; }
    if (line.trim() === '') { prevText = false; continue; }
    if (prevText && /^\s*(=+|-+)\s*$/.test(line)) { tags[tags.length - 1] = line.includes('=') ? 'h1' : 'h2'; prevText = false; continue; }
    let tag;
    let m;
    if ((m = /^\s*(#{1,6})\s/.exec(line))) tag = 'h' + m[1].length;
    else if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) tag = 'hr';
    else if ((m = /^(\s*)([-*+]|\d+[.)])\s/.exec(line))) tag = (/\d/.test(m[2]) ? 'ol' : 'ul') + (m[1].length > 0 ? '2' : '1');
    else if (/^\s*>/.test(line)) tag = 'bq';
    else if (/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line) && line.includes('-')) tag = 'tsep';
    else if (/^\s*\|.*\|\s*$/.test(line)) tag = 'tr';
    else tag = 'p';
    // Soft-wrapped paragraphs (html2text wraps at 78 columns) are one block.
    if (!(tag === 'p' && tags[tags.length - 1] === 'p' && prevText)) tags.push(tag);
    prevText = tag === 'p';
  }
  return tags;
}
/**
 * The line-regex reader with the CommonMark readings the original gets wrong fixed, for every converter alike:
 * list nesting follows the open items' content columns (a top-level list indented by 1-3 spaces, or a
 * sub-list less indented than its parent's content, is not nested); a block indented 4 columns past the
 * enclosing item's content after a blank line is indented code (tagged like a fenced block: code, c per
 * line, endcode); a fence closes only on the same character, at least as long, with nothing after it; an
 * item starting with an item (`*   *   x`) is two items; quoted lines continuing a quoted paragraph are one
 * block; a GFM table is a header row (outer pipes optional) over a delimiter row with as many cells, its
 * rows run to a blank line, and a pipe line without one is a paragraph. Everything else (one tag per line
 * kind, soft-wrapped paragraphs as one block) is the original reader. Checked against markdown-it on the
 * list items, code blocks and table rows of all 864 outputs (expected, ours, turndown): 19 differ, against
 * 90 for the original reader; about half of what is left is content inside blockquotes, which neither reads.
 */
const TABLE_DELIMITER = /^[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
/** Cells of a GFM table row: split on unescaped pipes, outer pipes optional. */
const cellCount = (row) => row.trim().replace(/^\|/, '').replace(/(?<!\\)\|$/, '').split(/(?<!\\)\|/).length;
const LIST_ITEM = /^([ \t]*)([-*+]|\d{1,9}[.)])([ \t]+)(\S)/;
function structureLinesCm(md) {
  const tags = [];
  const lines = md.replace(/\r\n?/g, '\n').split('\n').map((raw) => raw.replace(/\s+$/, ''));
  // Column after `text` (tabs to the next multiple of 4); with `leading`, only up to its first non-blank.
  const columnOf = (text, leading) => {
    let col = 0;
    for (const ch of text) {
      if (ch === '\t') col += 4 - (col % 4);
      else if (ch === ' ' || !leading) col++;
      else break;
    }
    return col;
  };
  const indentOf = (line) => columnOf(line, true);
  const items = []; // content columns of the open list items
  let fence = null; // { ch, len } of the open fenced code block
  let prevText = false;
  let quoteText = false; // the previous line was quoted paragraph text
  let inTable = false; // inside a GFM table (after its delimiter row)
  let afterBlank = true;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (fence) {
      const close = /^\s*(`{3,}|~{3,})$/.exec(line);
      if (close && close[1][0] === fence.ch && close[1].length >= fence.len) { tags.push('endcode'); fence = null; }
      else tags.push('c');
      continue;
    }
    if (line.trim() === '') { prevText = false; quoteText = false; inTable = false; afterBlank = true; continue; }
    if (!/^\s*>/.test(line)) quoteText = false;
    const indent = indentOf(line);
    if (afterBlank) while (items.length && indent < items[items.length - 1]) items.pop();
    const base = items.length ? items[items.length - 1] : 0;
    if (afterBlank && indent >= base + 4) {
      // Indented code: this line, and following blank or as-indented lines, without trailing blank lines.
      let end = i;
      for (let j = i + 1; j < lines.length; j++) {
        if (lines[j].trim() === '') continue;
        if (indentOf(lines[j]) >= base + 4) end = j;
        else break;
      }
      tags.push('code');
      for (let j = i; j <= end; j++) tags.push('c');
      tags.push('endcode');
      i = end;
      prevText = false;
      afterBlank = false;
      continue;
    }
    afterBlank = false;
    const open = /^\s*(`{3,}|~{3,})([^`]*)$/.exec(line);
    if (open && !(open[1][0] === '`' && open[2].includes('`'))) { fence = { ch: open[1][0], len: open[1].length }; tags.push('code'); prevText = false; continue; }
    if (prevText && /^\s*(=+|-+)\s*$/.test(line)) { tags[tags.length - 1] = line.includes('=') ? 'h1' : 'h2'; prevText = false; continue; }
    let tag;
    let m;
    if ((m = /^\s*(#{1,6})\s/.exec(line))) tag = 'h' + m[1].length;
    else if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) tag = 'hr';
    else if ((m = LIST_ITEM.exec(line))) {
      while (items.length && indent < items[items.length - 1]) items.pop();
      // An item's content may itself start with an item (`*   *   nested`): one tag per item.
      let rest = line;
      let start = indent;
      for (;;) {
        const gap = columnOf(m[1] + m[2] + m[3], false) - columnOf(m[1], false) - m[2].length;
        const content = start + m[2].length + (gap > 4 ? 1 : gap);
        items.push(content);
        const item = (/\d/.test(m[2]) ? 'ol' : 'ul') + (items.length > 1 ? '2' : '1');
        rest = rest.slice(m[0].length - m[4].length);
        m = LIST_ITEM.exec(rest);
        if (!m || m[1] !== '' || /^([-*_])([ \t]*\1){2,}[ \t]*$/.test(rest)) { tag = item; break; }
        tags.push(item);
        start = content;
      }
    }
    else if (/^\s*>/.test(line)) {
      // Quoted lines continuing a quoted paragraph (a wrapped quote) are one block; an empty `>` line ends it.
      const quoted = line.replace(/^\s*>[ \t]?/, '');
      const plain = quoted.trim() !== '' && !/^\s*([-*+]|\d{1,9}[.)])([ \t]|$)|^\s*(#|>|```|~~~|\|)/.test(quoted);
      const continues = plain && quoteText;
      quoteText = plain;
      prevText = false;
      inTable = false;
      if (quoted.trim() === '' || continues) continue;
      tags.push('bq');
      continue;
    }
    else if (inTable) tag = 'tr';
    else if (i + 1 < lines.length && line.includes('|') && TABLE_DELIMITER.test(lines[i + 1]) && cellCount(line) === cellCount(lines[i + 1])) {
      // A GFM header row (with or without outer pipes) followed by its delimiter row: a table, which ends
      // the paragraph above it and runs until a blank line or another block.
      tag = 'tr';
      inTable = true;
      tags.push(tag);
      tags.push('tsep');
      i++;
      prevText = false;
      continue;
    }
    else tag = 'p';
    if (tag !== 'tr') inTable = false;
    if (!(tag === 'p' && tags[tags.length - 1] === 'p' && prevText)) tags.push(tag);
    prevText = tag === 'p';
  }
  return tags;
}
function lcs(a, b) {
  if (a.length === 0 || b.length === 0) return 0;
  let prev = new Array(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const cur = new Array(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], cur[j - 1]);
    prev = cur;
  }
  return prev[b.length];
}
const seqSim = (a, b) => (a.length + b.length === 0 ? 1 : (2 * lcs(a, b)) / (a.length + b.length));
function words(md) {
  const bag = new Map();
  for (const w of md.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) bag.set(w, (bag.get(w) ?? 0) + 1);
  return bag;
}
function bagF1(a, b) {
  let na = 0, nb = 0, common = 0;
  for (const v of a.values()) na += v;
  for (const v of b.values()) nb += v;
  if (na + nb === 0) return 1;
  for (const [k, v] of a) common += Math.min(v, b.get(k) ?? 0);
  return (2 * common) / (na + nb);
}
const structureParser = new MarkdownIt('commonmark').enable('table').enable('strikethrough');
/**
 * Block kinds of a CommonMark parse: h1..h6, p, ul<depth>/ol<depth> per list then li per item (depth = list
 * nesting; so two adjacent lists differ from one list of all their items), code (fenced and indented alike, one
 * per block), bq per blockquote (its blocks follow), table then tr per row, hr, html (raw HTML blocks). Tight
 * and loose lists read alike: the first paragraph of an item is the item itself and is not counted again.
 */
function structureParsed(md) {
  const tags = [];
  const lists = [];
  let itemStart = false;
  for (const t of structureParser.parse(md, {})) {
    const first = itemStart;
    itemStart = false;
    switch (t.type) {
      case 'heading_open': tags.push(t.tag); break;
      case 'paragraph_open': if (!first) tags.push('p'); break;
      case 'bullet_list_open': case 'ordered_list_open':
        lists.push(t.type === 'bullet_list_open' ? 'ul' : 'ol');
        tags.push(lists[lists.length - 1] + lists.length);
        break;
      case 'bullet_list_close': case 'ordered_list_close': lists.pop(); break;
      case 'list_item_open': tags.push('li'); itemStart = true; break;
      case 'code_block': case 'fence': tags.push('code'); break;
      case 'blockquote_open': tags.push('bq'); break;
      case 'table_open': tags.push('table'); break;
      case 'tr_open': tags.push('tr'); break;
      case 'hr': tags.push('hr'); break;
      case 'html_block': tags.push('html'); break;
      default: break;
    }
  }
  return tags;
}
/** Both metrics: 0.5 structure similarity (parse-based / line-regex) + 0.5 bag-of-words F1. */
const score = (out, expected) => {
  const text = bagF1(words(out), words(expected));
  // LCS is quadratic: cap very long outputs (a few huge fixtures) to their first 3000 blocks.
  const sim = (fn) => seqSim(fn(out).slice(0, 3000), fn(expected).slice(0, 3000));
  return {
    parsed: 0.5 * sim(structureParsed) + 0.5 * text,
    lines: 0.5 * sim(structureLinesCm) + 0.5 * text,
    linesOrig: 0.5 * sim(structureLines) + 0.5 * text,
  };
};

function correctness() {
  const lines = readFileSync(join(corpora, 'markdown', 'all_cases.jsonl'), 'utf8').split('\n').filter(Boolean);
  const bySuite = {};
  const totals = { ours: 0, turndown: 0, oursLines: 0, turndownLines: 0, oursOrig: 0, turndownOrig: 0, n: 0, oursFail: 0, turndownFail: 0 };
  const worst = [];
  for (const line of lines) {
    const c = JSON.parse(line);
    let ours = '', td = '';
    try { ours = htmlToMarkdown(c.input_html, {}); } catch { totals.oursFail++; }
    try { td = makeTurndown().turndown(c.input_html); } catch { totals.turndownFail++; }
    const so = score(ours, c.expected_md), st = score(td, c.expected_md);
    const s = (bySuite[c.suite] ??= { n: 0, ours: 0, turndown: 0, oursLines: 0, turndownLines: 0, oursOrig: 0, turndownOrig: 0 });
    s.n++; s.ours += so.parsed; s.turndown += st.parsed; s.oursLines += so.lines; s.turndownLines += st.lines; s.oursOrig += so.linesOrig; s.turndownOrig += st.linesOrig;
    totals.n++; totals.ours += so.parsed; totals.turndown += st.parsed; totals.oursLines += so.lines; totals.turndownLines += st.lines;
    totals.oursOrig += so.linesOrig; totals.turndownOrig += st.linesOrig;
    worst.push({ suite: c.suite, name: c.name, ours: so.parsed, turndown: st.parsed, oursLines: so.lines, turndownLines: st.lines, oursOrig: so.linesOrig, turndownOrig: st.linesOrig });
  }
  for (const s of Object.values(bySuite)) for (const k of ['ours', 'turndown', 'oursLines', 'turndownLines', 'oursOrig', 'turndownOrig']) s[k] /= s.n;
  if (process.env.MD_DUMP_CASES) writeFileSync(process.env.MD_DUMP_CASES, JSON.stringify(worst, null, 1));
  worst.sort((a, b) => a.ours - a.turndown - (b.ours - b.turndown));
  return {
    cases: totals.n,
    ours: totals.ours / totals.n,
    turndown: totals.turndown / totals.n,
    oursLines: totals.oursLines / totals.n,
    turndownLines: totals.turndownLines / totals.n,
    oursOrig: totals.oursOrig / totals.n,
    turndownOrig: totals.turndownOrig / totals.n,
    failures: { ours: totals.oursFail, turndown: totals.turndownFail },
    bySuite,
    worstVsTurndown: worst.slice(0, 15),
  };
}

// ---------- (b) throughput ----------
function loadPages() {
  const pages = [];
  const rdir = join(corpora, 'readability', 'test-pages');
  for (const name of readdirSync(rdir).sort()) {
    const f = join(rdir, name, 'source.html');
    if (existsSync(f)) pages.push({ name: `readability/${name}`, html: readFileSync(f, 'utf8') });
  }
  const tdir = join(corpora, 'trafilatura-eval');
  const evaldata = JSON.parse(readFileSync(join(tdir, 'evaldata.json'), 'utf8'));
  const files = [...new Set(Object.values(evaldata).map((v) => v.file))].sort();
  // Deterministic spread over the list rather than the first N (which would be one alphabet letter).
  const step = Math.max(1, Math.floor(files.length / SAMPLE));
  for (let i = 0; i < files.length && pages.length < 10000; i += step) {
    const file = files[i];
    const p = [join(tdir, 'cache', file), join(tdir, 'eval', file)].find((x) => existsSync(x));
    if (p) pages.push({ name: `trafilatura/${basename(file)}`, html: readFileSync(p, 'utf8') });
    if (pages.filter((x) => x.name.startsWith('trafilatura/')).length >= SAMPLE) break;
  }
  return pages;
}

function throughput(pages) {
  const stats = {
    ours: { ms: 0, slowest: { name: '', ms: 0, bytes: 0 }, failures: [] },
    turndown: { ms: 0, slowest: { name: '', ms: 0, bytes: 0 }, failures: [] },
  };
  const run = (who, fn, page) => {
    const t0 = performance.now();
    try { fn(page.html); } catch (e) { if (!stats[who].failures.some((f) => f.name === page.name)) stats[who].failures.push({ name: page.name, error: String(e?.message ?? e).slice(0, 120) }); }
    const ms = performance.now() - t0;
    stats[who].ms += ms;
    if (ms > stats[who].slowest.ms) stats[who].slowest = { name: page.name, ms, bytes: Buffer.byteLength(page.html) };
  };
  const ours = (html) => htmlToMarkdown(html, { baseUrl: 'https://example.com/page' });
  const td = (html) => turndown.turndown(html);
  // Warm-up (JIT) on a few pages, not measured.
  for (const p of pages.slice(0, 10)) { try { ours(p.html); } catch { /* counted in the measured run */ } try { td(p.html); } catch { /* idem */ } }
  let bytes = 0;
  for (let r = 0; r < REPS; r++) {
    for (const page of pages) {
      bytes += Buffer.byteLength(page.html);
      // Alternate order per page so neither converter always runs on a cold cache.
      const first = (r + pages.indexOf(page)) % 2 === 0;
      if (first) { run('ours', ours, page); run('turndown', td, page); }
      else { run('turndown', td, page); run('ours', ours, page); }
    }
  }
  const mb = bytes / 1e6;
  const summarize = (s) => ({
    mbPerS: mb / (s.ms / 1000),
    pagesPerS: (pages.length * REPS) / (s.ms / 1000),
    totalMs: s.ms,
    slowest: { name: s.slowest.name, ms: Math.round(s.slowest.ms * 10) / 10, kb: Math.round(s.slowest.bytes / 1024) },
    failures: s.failures.length,
    failureSamples: s.failures.slice(0, 5),
  });
  const o = summarize(stats.ours), t = summarize(stats.turndown);
  return { pages: pages.length, reps: REPS, megabytes: mb / REPS, ours: o, turndown: t, ratio: o.mbPerS / t.mbPerS };
}

// ---------- (c) literal emphasis markers ----------
const markdownIt = new MarkdownIt('commonmark').enable('table').enable('strikethrough');
// Keep escaped characters as their own tokens (text_join would merge them into the text).
markdownIt.disable('text_join');
const LITERAL_MARKER = /\*|(?<![\p{L}\p{N}])__|__(?![\p{L}\p{N}])/u;

/** Unescaped emphasis markers left as text by a CommonMark parse of `md` (first few, with context). */
function literalMarkers(md) {
  const found = [];
  const walk = (tokens) => {
    for (const t of tokens) {
      if (t.type === 'text' && LITERAL_MARKER.test(t.content)) found.push(t.content.slice(0, 80));
      if (t.children) walk(t.children);
    }
  };
  walk(markdownIt.parse(md, {}));
  return found;
}

function emphasisLiterals() {
  const out = { cases: { n: 0, pages: 0, samples: [] }, pipeline: { n: 0, pages: 0, samples: [] } };
  const note = (bucket, name, md) => {
    bucket.n++;
    const found = literalMarkers(md);
    if (found.length === 0) return;
    bucket.pages++;
    if (bucket.samples.length < 12) bucket.samples.push({ name, text: found[0] });
  };
  for (const line of readFileSync(join(corpora, 'markdown', 'all_cases.jsonl'), 'utf8').split('\n').filter(Boolean)) {
    const c = JSON.parse(line);
    let md = '';
    try { md = htmlToMarkdown(c.input_html, {}); } catch { /* counted by correctness */ }
    note(out.cases, `${c.suite}/${c.name}`, md);
  }
  const all = [];
  const rdir = join(corpora, 'readability', 'test-pages');
  for (const name of readdirSync(rdir).sort()) {
    const f = join(rdir, name, 'source.html');
    if (existsSync(f)) all.push({ name: `readability/${name}`, file: f });
  }
  const tdir = join(corpora, 'trafilatura-eval');
  const evaldata = JSON.parse(readFileSync(join(tdir, 'evaldata.json'), 'utf8'));
  for (const file of [...new Set(Object.values(evaldata).map((v) => v.file))].sort()) {
    const p = [join(tdir, 'cache', file), join(tdir, 'eval', file)].find((x) => existsSync(x));
    if (p) all.push({ name: `trafilatura/${basename(file)}`, file: p });
  }
  for (const page of all) {
    let md = '';
    try {
      md = runHtmlPipeline(readFileSync(page.file, 'utf8'), { url: 'https://example.com/page', formats: { markdown: true } }).markdown ?? '';
    } catch { /* not this part's concern */ }
    note(out.pipeline, page.name, md);
  }
  return out;
}

if (args.includes('--correctness-only')) {
  const corr = correctness();
  const f3 = (x) => x.toFixed(3);
  console.log(`correctness on ${corr.cases} cases, parse-based structure (line-regex structure; original line-regex structure):`);
  console.log(`  ours ${f3(corr.ours)} (${f3(corr.oursLines)}; ${f3(corr.oursOrig)}), turndown+gfm ${f3(corr.turndown)} (${f3(corr.turndownLines)}; ${f3(corr.turndownOrig)})`);
  for (const [k, v] of Object.entries(corr.bySuite)) {
    console.log(`  ${k} (${v.n}): ours ${f3(v.ours)} (${f3(v.oursLines)}; ${f3(v.oursOrig)}), turndown+gfm ${f3(v.turndown)} (${f3(v.turndownLines)}; ${f3(v.turndownOrig)})`);
  }
  process.exit(0);
}

if (LITERALS_ONLY) {
  const lit = emphasisLiterals();
  console.log(JSON.stringify(lit, null, 2));
  process.exit(0);
}

const pages = loadPages();
const corr = correctness();
const literals = emphasisLiterals();
const perf = throughput(pages);
const f2 = (x) => x.toFixed(2), f3 = (x) => x.toFixed(3);
const table = [
  '| converter | correctness (0-1), parsed structure | correctness (0-1), line-regex structure | correctness (0-1), original line-regex structure | MB/s | pages/s | slowest page | failures |',
  '|---|---|---|---|---|---|---|---|',
  `| ours (@trawl/html) | ${f3(corr.ours)} | ${f3(corr.oursLines)} | ${f3(corr.oursOrig)} | ${f2(perf.ours.mbPerS)} | ${f2(perf.ours.pagesPerS)} | ${perf.ours.slowest.name} (${perf.ours.slowest.kb} KB) ${perf.ours.slowest.ms} ms | ${perf.ours.failures} |`,
  `| turndown 7.2.5 + gfm 1.0.2 (domino) | ${f3(corr.turndown)} | ${f3(corr.turndownLines)} | ${f3(corr.turndownOrig)} | ${f2(perf.turndown.mbPerS)} | ${f2(perf.turndown.pagesPerS)} | ${perf.turndown.slowest.name} (${perf.turndown.slowest.kb} KB) ${perf.turndown.slowest.ms} ms | ${perf.turndown.failures} |`,
  '',
  `Throughput ratio ours / turndown+gfm: **${f2(perf.ratio)}x** on ${perf.pages} pages (${f2(perf.megabytes)} MB, ${perf.reps} reps, interleaved).`,
  `Correctness on ${corr.cases} cases; per suite: ` +
    Object.entries(corr.bySuite).map(([k, v]) => `${k} ${f3(v.ours)} vs ${f3(v.turndown)} (line-regex ${f3(v.oursLines)} vs ${f3(v.turndownLines)}; original line-regex ${f3(v.oursOrig)} vs ${f3(v.turndownOrig)})`).join(', ') + '.',
  `Pages whose CommonMark parse keeps literal emphasis markers: ${literals.cases.pages} of ${literals.cases.n} markdown cases, ` +
    `${literals.pipeline.pages} of ${literals.pipeline.n} readability + trafilatura-eval pages (whole pipeline).`,
];
console.log(table.join('\n'));
if (perf.turndown.failureSamples.length) console.log('\nturndown failures:', perf.turndown.failureSamples);
if (perf.ours.failureSamples.length) console.log('\nour failures:', perf.ours.failureSamples);
mkdirSync(join(root, '.bench'), { recursive: true });
writeFileSync(
  join(root, '.bench', 'markdown.json'),
  JSON.stringify({ date: new Date().toISOString(), node: process.version, correctness: corr, throughput: perf, emphasisLiterals: literals }, null, 2),
);
console.log(`\nwrote ${join('.bench', 'markdown.json')}`);
