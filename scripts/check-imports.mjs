// Dependency rules of STYLE.md, checked on the TypeScript sources (no dependencies needed):
// - packages never import apps; api-schema and config are leaves (zod only; re2js for user patterns; tldts, the public suffix list, for URL hosts); crawl is a leaf (node:, re2js);
// - net-guard is a leaf: node: built-ins, undici (its guarded connector is an undici connector) and
//   @trawl/api-schema (TrawlError, the one error type) only;
// - the engines (scrape-engine, browser, documents) and html know nothing of queues (no bullmq/ioredis/@trawl/queue);
// - the engine core (scrape-engine) imports neither @trawl/browser nor @trawl/documents (nor Playwright, pdf.js);
// - the API runs no engine: no @trawl/scrape-engine, @trawl/browser, @trawl/documents, @trawl/html, Playwright;
// - nothing imports the removed `is-blocked-address` shim of scrape-engine (the classifier is @trawl/net-guard's);
// - production code never imports @trawl/testing (nor its subpaths);
// - no import cycles between files.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const files = [];
function walk(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name === '__fixtures__') continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) files.push(p);
  }
}
for (const top of ['apps', 'packages']) for (const d of readdirSync(join(ROOT, top))) walk(join(ROOT, top, d, 'src'));

// `import x from 'm'`, `export ... from 'm'`, `import('m')`, and bare side-effect imports `import 'm'`.
const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;
const isTest = (f) => /\.(int\.)?test\.ts$/.test(f);
const unitOf = (f) => relative(ROOT, f).split('/').slice(0, 2).join('/');

const RULES = [
  { from: /^packages\//, forbid: /^@trawl\/(api|worker|cli)(\/|$)/, why: 'packages never import apps' },
  { from: /^packages\/(api-schema|config)$/, forbid: /^(?!zod$|@asteasolutions\/zod-to-openapi$|re2js$|tldts$|node:|\.)/, why: 'api-schema and config are leaves (zod; re2js for user patterns; tldts for URL hosts)' },
  { from: /^packages\/llm$/, forbid: /^(?!openai(\/|$)|ajv(\/|$)|node:|\.)/, why: 'llm is a leaf (the openai client, ajv, node: built-ins)' },
  { from: /^packages\/search$/, forbid: /^(?!undici$|node:|\.)/, why: 'search is a leaf (providers over undici/fetch, node: built-ins)' },
  { from: /^packages\/crawl$/, forbid: /^(?!re2js$|node:|\.)/, why: 'crawl is a leaf (pure functions, node: built-ins and re2js only)' },
  { from: /^packages\/net-guard$/, forbid: /^(?!node:|undici$|@trawl\/api-schema$|\.)/, why: 'net-guard is a leaf (node: built-ins, undici, TrawlError of api-schema)' },
  { from: /^packages\/(scrape-engine|browser|documents|html)$/, forbid: /^(bullmq|ioredis|@trawl\/queue)$/, why: 'engines and the HTML pipeline know nothing of queues' },
  { from: /^packages\/scrape-engine$/, forbid: /^(@trawl\/(browser|documents)|playwright|playwright-core|playwright-extra|pdfjs-dist|pdf-parse|@ghostery\/)/, why: 'the engine core loads no browser and no document reader' },
  { from: /^apps\/api$/, forbid: /^(playwright|playwright-core|puppeteer|@trawl\/(scrape-engine|browser|documents|html)$)/, why: 'the gateway runs no engine' },
  { from: /^(?!packages\/net-guard$)/, forbid: /(^|\/)scrape-engine\/.*is-blocked-address|^@trawl\/scrape-engine\/|^\.{1,2}\/(\.\.\/)*is-blocked-address(\.js)?$/, why: 'the blocked-address classifier is @trawl/net-guard\'s (the scrape-engine shim is gone)' },
];

const errors = [];
const graph = new Map();
for (const file of files) {
  const src = readFileSync(file, 'utf8');
  const unit = unitOf(file);
  const edges = [];
  for (const m of src.matchAll(IMPORT_RE)) {
    const spec = m[1] ?? m[2] ?? m[3];
    if (!isTest(file)) {
      if (/^@trawl\/testing(\/|$)/.test(spec)) errors.push(`${relative(ROOT, file)}: production code imports @trawl/testing`);
      for (const r of RULES) if (r.from.test(unit) && r.forbid.test(spec)) errors.push(`${relative(ROOT, file)}: imports ${spec} (${r.why})`);
    }
    if (spec.startsWith('.')) edges.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
  }
  graph.set(file, edges);
}

// Cycle detection (iterative DFS with colours).
const colour = new Map();
for (const start of graph.keys()) {
  if (colour.get(start)) continue;
  const stack = [[start, 0]];
  const path = [];
  while (stack.length) {
    const top = stack[stack.length - 1];
    const [node, i] = top;
    if (i === 0) { colour.set(node, 1); path.push(node); }
    const edges = graph.get(node) ?? [];
    if (i < edges.length) {
      top[1] = i + 1;
      const next = edges[i];
      if (!graph.has(next)) continue;
      if (colour.get(next) === 1) {
        const cycle = path.slice(path.indexOf(next)).concat(next).map((f) => relative(ROOT, f));
        errors.push(`import cycle: ${cycle.join(' -> ')}`);
      } else if (!colour.get(next)) stack.push([next, 0]);
    } else {
      colour.set(node, 2);
      path.pop();
      stack.pop();
    }
  }
}

if (errors.length) {
  console.error(errors.join('\n'));
  console.error(`\n${errors.length} import rule violation(s)`);
  process.exit(1);
}
console.log(`imports ok: ${files.length} files, no cycles, no forbidden imports`);
