#!/usr/bin/env node
// LLM layer benchmark, against the fake Chat Completions server of @trawl/testing (no model runs here):
//
// (a) cost of long pages: for `json` extraction (extractJson) and `summary` (summarize), the tokens sent
//     per page and the number of calls, at a small (2048) and a large (32768) context window, against
//     sending the whole page in one call (same prompts, a context window no page exceeds), same run.
//     Pages: readability/test-pages/*/source.html through our HTML pipeline (main content, markdown), as
//     a scrape with the default `onlyMainContent` produces them. "Tokens sent" is the fake's usage
//     (characters of all messages / 4, what the token ledger records); "over the window" counts pages
//     whose single call would not fit the window at all (a real model would refuse them).
// (b) the layer's own cost per call: ChatCompletionsLlm.structured() / .text() against a bare `fetch`
//     POST of the very same request body to the same local server, interleaved, one call at a time.
//
//   pnpm exec turbo run build && node scripts/bench/llm.bench.mjs [--limit N] [--calls N]
//
// Prints a markdown table and writes .bench/llm.json.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CORPORA = process.env.CORPORA_DIR ?? path.resolve(ROOT, '../shared/corpora');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? Number(args[i + 1]) : dflt;
};
const LIMIT = opt('--limit', Infinity);
const CALLS = opt('--calls', 300);
const CONTEXTS = [2048, 32768];
/** A window no page of the corpus reaches: the whole page in one call. */
const WHOLE = 1e9;

const dist = (pkg) => import(pathToFileURL(path.join(ROOT, 'packages', pkg, 'dist', 'index.js')).href);
const html = await dist('html');
const llmPkg = await dist('llm');
const testing = await dist('testing');
const { ChatCompletionsLlm, extractJson, summarize, estimateTokens } = llmPkg;

// ------------------------------------------------------------------ corpus
function decode(buf) {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(buf);
  } catch {
    return new TextDecoder('windows-1252').decode(buf);
  }
}

function loadPages() {
  const dir = path.join(CORPORA, 'readability', 'test-pages');
  const pages = [];
  for (const name of fs.readdirSync(dir).sort()) {
    const file = path.join(dir, name, 'source.html');
    if (!fs.existsSync(file)) continue;
    const source = decode(fs.readFileSync(file));
    const markdown = html.runHtmlPipeline(source, { url: `https://example.com/${name}/`, formats: { markdown: true }, onlyMainContent: true }).markdown ?? '';
    if (markdown.trim() === '') continue;
    pages.push({ name, markdown });
    if (pages.length >= LIMIT) break;
  }
  return pages;
}

// ------------------------------------------------------------------ the fake model's answers
const SCHEMA = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    author: { type: ['string', 'null'] },
    published: { type: ['string', 'null'] },
    topics: { type: 'array', items: { type: 'string' } },
  },
  required: ['title', 'author', 'published', 'topics'],
  additionalProperties: false,
};
const SUMMARY_ANSWER = 'This page explains its subject in some detail, gives examples and figures, and ends with a short conclusion about what it means for readers. '.repeat(3).trim();

/** Contents of the user message between the layer's delimiters (or the whole of it). */
function userContent(request) {
  const user = [...request.messages].reverse().find((m) => m.role === 'user');
  return typeof user?.content === 'string' ? user.content : '';
}

/**
 * Answers that look like a model's: the extraction of a chunk names the chunk's first heading as the
 * title (so the chunks of a page disagree and the reduce call runs, as with real pages), the reduce
 * call picks the first candidate, a summary is about 100 tokens.
 */
function respond(request) {
  const schemaName = request.responseFormat?.json_schema?.name;
  if (schemaName === 'choices') {
    const fields = /"field":\s*"((?:[^"\\]|\\.)*)"/g;
    return { choices: [...userContent(request).matchAll(fields)].map((m) => ({ field: JSON.parse(`"${m[1]}"`), candidate: 0 })) };
  }
  if (request.responseFormat !== undefined) {
    const heading = /^#{1,6}\s+(.+)$/m.exec(userContent(request))?.[1]?.slice(0, 80) ?? 'Untitled';
    return { title: heading, author: null, published: null, topics: ['topic'] };
  }
  return SUMMARY_ANSWER;
}

/** The default answer budget (1024 tokens), at most a quarter of a small window. */
const answerTokens = (contextTokens) => Math.min(1024, Math.floor(contextTokens / 4));

function newLlm(baseUrl, contextTokens) {
  return new ChatCompletionsLlm({
    baseUrl,
    apiKey: 'bench',
    model: 'fake-model',
    models: {},
    contextTokens,
    maxOutputTokens: answerTokens(contextTokens),
    timeoutMs: 120_000,
    concurrency: 3,
  });
}

// ------------------------------------------------------------------ (a) tokens and calls per page
async function costPerPage(server, pages) {
  const settings = [...CONTEXTS.map((c) => ({ label: String(c), context: c })), { label: 'whole page', context: WHOLE }];
  const features = {
    json: (llm, markdown) => extractJson(llm, { markdown, schema: SCHEMA, prompt: 'The article: title, author, publication date and topics.' }),
    summary: (llm, markdown) => summarize(llm, { markdown }),
  };
  const rows = {};
  try {
    await features.json(newLlm(server.baseUrl, WHOLE), pages[0].markdown);
  } catch (e) {
    // The task functions are stubs until they land: measure what can run.
    if (/not implemented/.test(String(e?.message))) return undefined;
    throw e;
  }
  for (const [feature, run] of Object.entries(features)) {
    for (const s of settings) {
      const llm = newLlm(server.baseUrl, s.context);
      const perPage = [];
      for (const page of pages) {
        const before = server.requests.length;
        const result = await run(llm, page.markdown);
        const requests = server.requests.slice(before);
        const largest = Math.max(...requests.map((r) => estimateTokens(r.messages.map((m) => m.content).join('\n'))));
        perPage.push({ name: page.name, promptTokens: result.usage.promptTokens, calls: requests.length, chunks: result.chunks, largestRequestTokens: largest });
      }
      rows[`${feature} ${s.label}`] = { feature, setting: s.label, context: s.context, perPage };
    }
  }
  // Pages whose single call (the whole-page setting) does not fit a window.
  for (const feature of Object.keys(features)) {
    const whole = rows[`${feature} whole page`].perPage;
    for (const c of CONTEXTS) rows[`${feature} ${c}`].overWindowInOneCall = whole.filter((p) => p.largestRequestTokens + answerTokens(c) > c).length;
  }
  return rows;
}

// ------------------------------------------------------------------ (b) the layer's cost per call
async function overheadPerCall(server, pages) {
  const llm = newLlm(server.baseUrl, 32768);
  // A typical chunk: about 1,500 tokens of a real page.
  const content = pages.map((p) => p.markdown).join('\n\n').slice(0, 6000);
  const kinds = {
    structured: () => llm.structured({ feature: 'json', instructions: 'Extract the title, author, publication date and topics.', content, schema: SCHEMA }),
    text: () => llm.text({ feature: 'summary', instructions: 'Summarize the page.', content }),
  };
  const out = {};
  for (const [kind, ours] of Object.entries(kinds)) {
    const before = server.requests.length;
    await ours();
    const sent = server.requests[before];
    if (sent === undefined || server.requests.length !== before + 1) throw new Error(`${kind}: expected one request, got ${server.requests.length - before}`);
    const body = JSON.stringify(sent.body);
    const headers = { 'content-type': 'application/json', authorization: sent.authorization ?? 'Bearer bench' };
    const bare = async () => {
      const res = await fetch(`${server.baseUrl}/chat/completions`, { method: 'POST', headers, body });
      const json = await res.json();
      if (!res.ok || typeof json.choices?.[0]?.message?.content !== 'string') throw new Error(`bare fetch: HTTP ${res.status}`);
    };
    for (let i = 0; i < 30; i++) { await ours(); await bare(); } // warm-up (JIT, connections)
    const times = { ours: [], bare: [] };
    for (let i = 0; i < CALLS; i++) {
      // Alternate which goes first so neither always follows the other.
      const order = i % 2 === 0 ? ['ours', 'bare'] : ['bare', 'ours'];
      for (const who of order) {
        const t0 = performance.now();
        await (who === 'ours' ? ours() : bare());
        times[who].push(performance.now() - t0);
      }
    }
    out[kind] = { calls: CALLS, requestBytes: Buffer.byteLength(body), ours: stats(times.ours), bare: stats(times.bare) };
  }
  return out;
}

function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { mean: s.reduce((a, b) => a + b, 0) / s.length, p50: q(0.5), p95: q(0.95) };
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// ------------------------------------------------------------------ run and report
const server = await testing.startFakeChatCompletions({ respond });
let cost;
let overhead;
let pages;
try {
  pages = loadPages();
  cost = await costPerPage(server, pages);
  overhead = await overheadPerCall(server, pages);
} finally {
  await server.close();
}

const f0 = (x) => Math.round(x).toLocaleString('en-US');
const f1 = (x) => x.toFixed(1);
const f2 = (x) => x.toFixed(2);
const pageTokens = pages.map((p) => estimateTokens(p.markdown));
const lines = [
  `${pages.length} pages (readability corpus, main content as markdown): ${f0(mean(pageTokens))} tokens per page on average (median ${f0(median(pageTokens))}, largest ${f0(Math.max(...pageTokens))}), estimated.`,
  '',
];
if (cost === undefined) lines.push('(a) skipped: extractJson/summarize are not implemented in this build.');
else lines.push(
  '| feature, context window | tokens sent per page (mean / median) | calls per page (mean / max) | pages chunked | vs whole page in one call: tokens | pages whose one call would not fit |',
  '|---|---|---|---|---|---|',
);
for (const feature of cost === undefined ? [] : ['json', 'summary']) {
  const whole = cost[`${feature} whole page`];
  const wholeTokens = mean(whole.perPage.map((p) => p.promptTokens));
  for (const label of [...CONTEXTS.map(String), 'whole page']) {
    const row = cost[`${feature} ${label}`];
    const tokens = row.perPage.map((p) => p.promptTokens);
    const calls = row.perPage.map((p) => p.calls);
    const chunked = row.perPage.filter((p) => p.chunks > 1).length;
    const ratio = label === 'whole page' ? '' : `${f2(mean(tokens) / wholeTokens)}x`;
    const over = row.overWindowInOneCall === undefined ? '' : String(row.overWindowInOneCall);
    lines.push(`| ${feature}, ${label === 'whole page' ? 'whole page in one call' : `${label} tokens`} | ${f0(mean(tokens))} / ${f0(median(tokens))} | ${f2(mean(calls))} / ${Math.max(...calls)} | ${chunked} | ${ratio} | ${over} |`);
  }
}
lines.push('', '| call (one at a time, same request body) | ours: p50 / mean / p95 ms | bare fetch: p50 / mean / p95 ms | ratio p50 (mean) | overhead p50 |', '|---|---|---|---|---|');
for (const [kind, o] of Object.entries(overhead)) {
  lines.push(`| ChatCompletionsLlm.${kind}(), ${f0(o.requestBytes)} B request, ${o.calls} calls | ${f2(o.ours.p50)} / ${f2(o.ours.mean)} / ${f2(o.ours.p95)} | ${f2(o.bare.p50)} / ${f2(o.bare.mean)} / ${f2(o.bare.p95)} | ${f2(o.ours.p50 / o.bare.p50)}x (${f2(o.ours.mean / o.bare.mean)}x) | ${f1((o.ours.p50 - o.bare.p50) * 1000)} µs |`);
}
console.log(lines.join('\n'));
fs.mkdirSync(path.join(ROOT, '.bench'), { recursive: true });
fs.writeFileSync(
  path.join(ROOT, '.bench', 'llm.json'),
  JSON.stringify({ date: new Date().toISOString(), node: process.version, pages: pages.length, cost, overhead }, null, 2),
);
console.log(`\nwrote ${path.join('.bench', 'llm.json')}`);
