// Crawl throughput (pages/s) of three crawlers (Trawl twice) on the same loopback sites, in one run, at the same
// concurrency:
//   minimal  a single-process fetch-and-parse loop (the practical limit): undici fetch with a pool of
//            CONCURRENCY, each page through the project's own HTML pipeline (markdown + links), same-host
//            links under the seed followed, deduplicated by URL (fragment dropped). No robots.txt, no sitemap.
//   crawlee  Crawlee's CheerioCrawler (in-memory storage, min = max concurrency, same-hostname
//            enqueueLinks); its handler reads title and body text: what a TypeScript user would pick.
//   trawl    the whole cluster through its API: POST /v2/crawl (sitemap skipped, markdown), then waits for
//            `completed` (its webhook, or a status poll). pages/s counts from the POST to completion.
//            Skipped when the gateway has no crawl route yet (404).
//   trawl + page webhooks  the same with a webhook for every page too (delivered to this process); the
//            lag is the receipt time of the `crawl.completed` webhook minus that of the last `crawl.page`.
// Sites: the Apache Jena mirror of ../shared/corpora/site-jena (256 pages, many broken links; served like
// ../shared/corpora/serve_static.mjs --rewrite https://jena.apache.org) and a GeneratedSite of --pages
// pages (a tree, see packages/testing). Sites, crawlers and the cluster share this process, as in
// scrape.bench.mjs. Warm-up crawls (a small generated site, then the Jena mirror) run first so no
// crawler pays for JIT and connection set-up in its first round.
// Each crawl runs --rounds times (order rotated, median reported) unless its first round took over 20 s;
// each crawl stops at the --timeout-s deadline.
//   node scripts/bench/crawl.bench.mjs [--pages 2000] [--concurrency 8] [--rounds 3] [--timeout-s 240]
// Two more modes run Trawl alone, its worker as a child process (`apps/worker/dist/main.js`), on a
// GeneratedSite (sitemap skipped, markdown, page webhooks on):
//   --mode profile   one crawl of --pages pages: Redis commands per page (INFO commandstats, with the
//                    calls made inside scripts) and the worker's CPU ms per page; --cpu-prof DIR also
//                    writes the worker's V8 CPU profile there.
//                    --site jena crawls the Jena mirror instead.
//   --mode hops      one crawl with the cluster in this process (worker roles as above): where a page's
//                    time goes, hop by hop (the `trawl:hop` diagnostics channel); --site jena as above.
//                    A TRAWL_* variable in the bench's environment reaches the cluster (compare and hops modes).
//   --mode cpu       the cluster in this process, as the compare mode runs it: --rounds crawls (default 4
//                    here) of the generated site (--site jena: the mirror) after the warm-up, each with
//                    its pages/s, this process's CPU per page (every thread: API, worker, conversion
//                    thread, the site) and Redis's (INFO cpu). Page webhooks off. For same-window A/B runs.
//   --mode memory    one crawl of --pages pages (default 10000 here): the worker's RSS sampled every
//                    250 ms, the mean of the last quarter of the samples over the first quarter (flat:
//                    <= 1.1), and the Chromium processes left behind (none expected). The worker runs
//                    with the heap cap of its Kubernetes manifest (--worker-heap-mb 640; 0: V8's default).
//                    Before it, a warm-up crawl of --warm-pages pages (default 3000; the profile mode's
//                    warm-up crawls 100) on a site of its own, measured the same way: a cold worker's heaps
//                    grow to their working size over its first few thousand pages, and the warm-up's ratio
//                    shows that.
// In the profile, hops and memory modes the crawl has page webhooks on; BENCH_NO_PAGE_HOOKS=1 turns
// them off (its webhook hears only the end), for their cost in a same-window A/B.
import { setMaxListeners } from 'node:events';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, resolve, sep } from 'node:path';
import { performance } from 'node:perf_hooks';

const ROOT = new URL('../..', import.meta.url).pathname;
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const argText = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const MODE = argText('mode', 'compare');
const PAGES = arg('pages', MODE === 'memory' ? 10_000 : 2000);
const CONCURRENCY = arg('concurrency', 8);
const TIMEOUT_MS = arg('timeout-s', 240) * 1000;
const ROUNDS = arg('rounds', MODE === 'cpu' ? 4 : 3);
const SLOW_MS = 20_000;
/** How often a Trawl crawl's status is polled (the 4.x SDK's `crawl()` waits at least 1 s between polls). */
const STATUS_POLL_MS = 1000;
const LIMIT = Math.max(10_000, PAGES);
// The worker roles `npm start` runs (apps/cli/src/embedded.ts): a PDF linked from a page is handed to
// the documents role, a JavaScript shell to the browser. TRAWL_WORKER_ROLES overrides.
const ROLES = process.env.TRAWL_WORKER_ROLES ?? (existsSync(process.env.TRAWL_CHROMIUM_PATH ?? '/usr/bin/chromium') ? 'http,browser,documents' : 'http,documents');
/** What `npm start` derives from its roles (browser fallback, document parsing, a local blob store in `dir`). */
const roleEnv = (dir) => ({
  TRAWL_WORKER_ROLES: ROLES,
  TRAWL_BROWSER_ENABLED: String(ROLES.includes('browser')), TRAWL_BROWSER_FALLBACK: String(ROLES.includes('browser')),
  TRAWL_DOCUMENTS_ENABLED: String(ROLES.includes('documents')), TRAWL_DOCUMENT_PARSING: String(ROLES.includes('documents')),
  TRAWL_BLOB_DIR: join(dir, 'blobs'), TRAWL_BLOB_SIGNING_SECRET: 'bench-blob-secret-0123456789abcdef',
});
const JENA = join(ROOT, '../shared/corpora/site-jena/site');
if (!existsSync(JENA)) {
  console.error(`corpus not found: ${JENA}`);
  process.exit(1);
}

const { RedisProcess } = await import(join(ROOT, 'packages/queue/dist/index.js'));
const { startApi, apiConfigSchema } = await import(join(ROOT, 'apps/api/dist/index.js'));
const { startWorker, workerConfigSchema } = await import(join(ROOT, 'apps/worker/dist/index.js'));
const { loadConfig } = await import(join(ROOT, 'packages/config/dist/index.js'));
const { createLogger } = await import(join(ROOT, 'packages/observability/dist/index.js'));
const { runHtmlPipeline } = await import(join(ROOT, 'packages/html/dist/index.js'));
// generated-site.js directly: the package index also exports Jest fixtures, which need Jest's globals.
const { GeneratedSite } = await import(join(ROOT, 'packages/testing/dist/generated-site.js'));
const { RedisMonitor } = await import(join(ROOT, 'packages/testing/dist/redis-monitor.js'));
const { fetch: undiciFetch } = await import(join(ROOT, 'packages/scrape-engine/node_modules/undici/index.js'));
const { CheerioCrawler, Configuration, log: crawleeLog } = await import('@crawlee/cheerio');
crawleeLog.setLevel(crawleeLog.LEVELS.OFF);

// --- Sites -------------------------------------------------------------------------------------------

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.htm': 'text/html; charset=utf-8', '.xml': 'application/xml; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8', '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8', '.svg': 'image/svg+xml', '.png': 'image/png', '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.ico': 'image/x-icon', '.pdf': 'application/pdf',
  '.gz': 'application/gzip', '.zip': 'application/zip', '.rdf': 'application/rdf+xml', '.ttl': 'text/turtle',
};
const TEXTUAL = /^(text\/|application\/(xml|json|javascript|rdf\+xml)|image\/svg)/;

/**
 * Static files of `root` on loopback, answering as serve_static.mjs does: the mirrored origin rewritten
 * to the local one in text bodies, 301 from `dir` to `dir/`, `index.html` for directories, 404 with
 * `404.html` as the body. Bodies are cached after the first read so disk I/O is not what is measured.
 */
async function startStaticSite(root, rewriteOrigin) {
  const cache = new Map();
  let requests = 0;
  let local = '';
  const host = rewriteOrigin.replace(/^https?:\/\//, '').replace(/\/$/, '');
  const load = (file) => {
    let entry = cache.get(file);
    if (!entry) {
      const type = TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
      let body = readFileSync(file);
      if (TEXTUAL.test(type)) {
        let s = body.toString('utf8');
        for (const from of [`https://${host}`, `http://${host}`]) s = s.split(from).join(local);
        body = Buffer.from(s.split(`//${host}`).join(local.replace(/^http:/, '')));
      }
      entry = { type, body };
      cache.set(file, entry);
    }
    return entry;
  };
  const send = (res, status, file) => {
    const { type, body } = load(file);
    res.writeHead(status, { 'content-type': type, 'content-length': body.length });
    res.end(body);
  };
  const server = createServer((req, res) => {
    requests += 1;
    try {
      const url = new URL(req.url ?? '/', local);
      const path = decodeURIComponent(url.pathname);
      const file = resolve(root, `.${path}`);
      const isDir = existsSync(file) && statSync(file).isDirectory();
      if (file !== root && !file.startsWith(root + sep)) res.writeHead(403).end();
      else if (isDir && !path.endsWith('/')) res.writeHead(301, { location: `${path}/${url.search}` }).end();
      else if (isDir && existsSync(join(file, 'index.html'))) send(res, 200, join(file, 'index.html'));
      else if (!isDir && existsSync(file)) send(res, 200, file);
      else if (existsSync(join(root, '404.html'))) send(res, 404, join(root, '404.html'));
      else res.writeHead(404).end('not found');
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  local = `http://127.0.0.1:${server.address().port}`;
  return {
    origin: local, totalRequests: () => requests, resetCounters: () => { requests = 0; },
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }),
  };
}

// --- Crawlers ----------------------------------------------------------------------------------------

const isHtml = (type) => /^(text\/html|application\/xhtml\+xml)/i.test(type ?? '');
const withoutHash = (url) => {
  const u = new URL(url);
  u.hash = '';
  return u.href;
};

/** The practical limit: fetch, parse, follow, nothing else. */
async function minimalCrawl(seed, { signal }) {
  const { origin, pathname } = new URL(seed);
  const scope = origin + pathname.slice(0, pathname.lastIndexOf('/') + 1);
  const seen = new Set([withoutHash(seed)]);
  const finals = new Set();
  const queue = [...seen];
  // pages: distinct documents; ok: 2xx HTML pages; nonHtml: answers without an HTML Content-Type,
  // fetched but not parsed (the Jena server's 404s carry no Content-Type at all).
  const counts = { pages: 0, ok: 0, nonHtml: 0, errors: 0 };
  const visit = async (url) => {
    const res = await undiciFetch(url, { signal });
    const final = withoutHash(res.url || url);
    // A redirect to a page already visited (dir -> dir/) is the same document.
    if (finals.has(final)) return void (await res.body?.cancel());
    finals.add(final);
    counts.pages += 1;
    const type = res.headers.get('content-type');
    if (!isHtml(type)) {
      counts.nonHtml += 1;
      return void (await res.arrayBuffer());
    }
    const out = runHtmlPipeline(await res.text(), { url: final, formats: { markdown: true, links: true } });
    if (res.ok) counts.ok += 1;
    for (const link of out.links ?? []) {
      if (!link.startsWith(scope)) continue;
      const next = withoutHash(link);
      if (!seen.has(next) && seen.size < LIMIT) {
        seen.add(next);
        queue.push(next);
      }
    }
  };
  let active = 0;
  await new Promise((done) => {
    const pump = () => {
      while (active < CONCURRENCY && queue.length > 0 && !signal.aborted) {
        const url = queue.shift();
        active += 1;
        visit(url).catch((err) => {
          counts.errors += 1;
          counts.firstError ??= String(err?.cause?.message ?? err?.message ?? err);
        }).finally(() => { active -= 1; pump(); });
      }
      if (active === 0) done();
    };
    pump();
  });
  return counts;
}

/** Crawlee's CheerioCrawler, storage in memory under a temporary directory, purged on start. */
async function crawleeCrawl(seed, { signal }) {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-crawlee-'));
  const config = new Configuration({
    persistStorage: false, purgeOnStart: true, storageClientOptions: { localDataDirectory: dir, persistStorage: false },
  });
  const counts = { pages: 0, ok: 0, nonHtml: 0, errors: 0 };
  const crawler = new CheerioCrawler({
    minConcurrency: CONCURRENCY, maxConcurrency: CONCURRENCY, maxRequestRetries: 0, maxRequestsPerCrawl: LIMIT,
    async requestHandler({ $, response, enqueueLinks }) {
      counts.pages += 1;
      const title = $('title').text();
      const text = $('body').text();
      if (title.length + text.length > 0 && response.statusCode < 300) counts.ok += 1;
      await enqueueLinks({ strategy: 'same-hostname' });
    },
    failedRequestHandler(_ctx, error) {
      // Non-HTML resources end here (Crawlee refuses their Content-Type): fetched, not parsed. 4xx HTML
      // pages reach the request handler.
      counts.pages += 1;
      if (/served Content-Type/.test(String(error?.message))) counts.nonHtml += 1;
      else {
        counts.errors += 1;
        counts.firstError ??= String(error?.message);
      }
    },
  }, config);
  const abort = () => void crawler.autoscaledPool?.abort();
  signal.addEventListener('abort', abort, { once: true });
  try {
    await crawler.run([seed]);
  } finally {
    signal.removeEventListener('abort', abort);
    rmSync(dir, { recursive: true, force: true });
  }
  return counts;
}

/** Receives webhook deliveries on loopback and records when each arrived. */
async function startWebhookReceiver() {
  const receiver = { deliveries: [], waiters: [] };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(200).end();
      let body;
      try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { return; }
      receiver.deliveries.push({ at, type: body.type, id: body.id, docs: Array.isArray(body.data) ? body.data.length : 0 });
      for (const w of receiver.waiters.splice(0)) w();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  receiver.url = `http://127.0.0.1:${server.address().port}/hook`;
  receiver.close = () => new Promise((r) => { server.closeAllConnections(); server.close(r); });
  receiver.next = () => new Promise((r) => receiver.waiters.push(r));
  return receiver;
}

const DOC_TIME_KEYS = ['scrapedAt', 'fetchedAt', 'timestamp', 'completedAt'];
const docTime = (doc) => {
  for (const key of DOC_TIME_KEYS) {
    const t = Date.parse(doc?.metadata?.[key] ?? '');
    if (Number.isFinite(t)) return t;
  }
  return undefined;
};

/**
 * Trawl through its public API; `{ skipped }` when the crawl route does not exist yet. `pageHooks`: the
 * crawl's webhook also takes its page events (one POST per page to this process), for the lag of
 * `completed` after the last of them; without it (a user's defaults) only `completed`/`failed`.
 */
async function trawlCrawl(seed, { signal, cluster, hooks, pageHooks: withPageHooks = !process.env.BENCH_NO_PAGE_HOOKS }) {
  const headers = { authorization: `Bearer ${cluster.key}`, 'content-type': 'application/json' };
  const get = async (url) => (await fetch(url, { headers, signal })).json();
  hooks.deliveries.length = 0;
  const t0 = performance.now();
  const res = await fetch(`${cluster.url}/v2/crawl`, {
    method: 'POST', headers, signal,
    body: JSON.stringify({
      // maxAge 0: every round fetches, as Crawlee does (the cache would serve repeated rounds).
      url: seed, limit: LIMIT, sitemap: 'skip', maxConcurrency: CONCURRENCY, scrapeOptions: { formats: ['markdown'], maxAge: 0 },
      webhook: { url: hooks.url, events: withPageHooks ? ['page', 'completed', 'failed'] : ['completed', 'failed'] },
    }),
  });
  if (res.status === 404) return { skipped: 'POST /v2/crawl answered 404: the crawl API is not merged on this branch yet' };
  const started = await res.json();
  if (!started.success) throw new Error(`crawl start failed: ${JSON.stringify(started)}`);
  const id = started.id;
  const finishedHook = () => hooks.deliveries.find((d) => d.id === id && /^crawl\.(completed|failed)$/.test(d.type));
  // Completion is whichever comes first: the webhook, or a poll that sees a final status. The poll
  // runs at the SDK waiter's shortest interval: each answer carries up to 100 documents, read and
  // serialized on the event loop the crawl runs on (at the 100 ms this bench used to poll at, that
  // cost Trawl about a tenth of its pages/s, work the other crawlers never do).

  let status;
  let doneAt;
  const polling = (async () => {
    while (!signal.aborted) {
      const s = await get(`${cluster.url}/v2/crawl/${id}`);
      if (['completed', 'failed', 'cancelled'].includes(s.status)) {
        doneAt ??= performance.now();
        status = s;
        return;
      }
      await new Promise((r) => setTimeout(r, STATUS_POLL_MS));
    }
  })();
  const hooked = (async () => {
    while (!finishedHook() && !signal.aborted) await hooks.next();
    if (finishedHook()) doneAt ??= finishedHook().at;
  })();
  await Promise.race([polling, hooked, new Promise((r) => signal.addEventListener('abort', r, { once: true }))]);
  if (!doneAt) {
    await fetch(`${cluster.url}/v2/crawl/${id}`, { method: 'DELETE', headers }).catch(() => {});
    throw new Error('timed out');
  }
  await polling;
  const docs = [...(status.data ?? [])];
  for (let next = status.next; next; ) {
    const page = await get(next);
    docs.push(...(page.data ?? []));
    next = page.next;
  }
  const pageHooks = hooks.deliveries.filter((d) => d.id === id && d.type === 'crawl.page');
  const completedHook = finishedHook();
  const lastPage = pageHooks.at(-1);
  const lastDocTime = Math.max(...docs.map(docTime).filter((t) => t !== undefined));
  return {
    pages: docs.length,
    ok: docs.filter((d) => (d.metadata?.statusCode ?? 200) < 300).length,
    status: status.status,
    elapsedMs: doneAt - t0,
    ...(withPageHooks ? { webhookPages: pageHooks.reduce((n, d) => n + d.docs, 0) } : {}),
    lagMs: completedHook && lastPage ? completedHook.at - lastPage.at : undefined,
    completedAtLagMs: status.completedAt && Number.isFinite(lastDocTime) ? Date.parse(status.completedAt) - lastDocTime : undefined,
  };
}

// --- Run ---------------------------------------------------------------------------------------------

async function startCluster() {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-'));
  const redis = await new RedisProcess({ dir, appendonly: false }).start();
  const env = {
    REDIS_URL: redis.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', TRAWL_ALLOW_PRIVATE_TARGETS: 'true',
    TRAWL_BOOTSTRAP_API_KEY: 'tr-bench-key-0123456789', TRAWL_WORKER_PORT: '0', ...roleEnv(dir),
    // A TRAWL_* setting of the bench's own environment applies (TRAWL_WEBHOOK_PAGE_BATCH=1: a job per page event).
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('TRAWL_') && k !== 'TRAWL_WORKER_ROLES')),
    // Politeness as shipped (adaptive per host, TRAWL_CRAWL_HOST_* defaults): defaults on every side.
  };
  const logger = createLogger({ role: 'bench', level: 'silent' });
  // The API first: its URL is the base of the blob URLs the worker signs (as `npm start` does).
  const api = await startApi(loadConfig(apiConfigSchema, env), { logger });
  const worker = await startWorker(loadConfig(workerConfigSchema, env), { logger, blobPublicBaseUrl: api.url });
  const team = await api.teams.resolveKey(env.TRAWL_BOOTSTRAP_API_KEY);
  await api.teams.update(team.id, { concurrency: CONCURRENCY, ratePerMinute: 1_000_000 });
  return {
    url: api.url, key: env.TRAWL_BOOTSTRAP_API_KEY, redisUrl: redis.url,
    async close() {
      await api.close({ graceMs: 1000 });
      await worker.close({ graceMs: 1000 });
      await redis.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs one crawler against one site with a deadline; adds elapsed time and the site's request count. */
async function measure(name, crawl, site, ctx) {
  site.resetCounters();
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  // undici's fetch adds one abort listener per request to the shared signal (0, "unlimited", makes
  // undici's own getMaxListeners call throw on Node 20).
  setMaxListeners(1_000_000, signal);
  const t0 = performance.now();
  try {
    const r = await crawl(site.url, { ...ctx, signal });
    if (r.skipped) return { crawler: name, skipped: r.skipped };
    const elapsedMs = r.elapsedMs ?? performance.now() - t0;
    const note = signal.aborted ? `stopped at the ${TIMEOUT_MS / 1000} s deadline` : undefined;
    return { crawler: name, ...r, elapsedMs, pagesPerSec: r.pages / (elapsedMs / 1000), requests: site.totalRequests(), note };
  } catch (err) {
    return { crawler: name, skipped: `failed: ${err.message}` };
  }
}

/** The round with the median elapsed time, plus every round's pages/s (counts can differ between rounds). */
function median(runs) {
  const done = runs.filter((r) => !r.skipped);
  if (done.length === 0) return runs[0];
  const sorted = [...done].sort((a, b) => a.elapsedMs - b.elapsedMs);
  const mid = sorted[Math.floor((sorted.length - 1) / 2)];
  return { ...mid, rounds: done.map((r) => ({ pages: r.pages, pagesPerSec: r.pagesPerSec, ...(r.lagMs !== undefined ? { lagMs: r.lagMs } : {}) })) };
}


// --- Trawl alone: profile and memory modes -------------------------------------------------------------

/** Resident set size of a process from /proc, bytes. */
const rssOf = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
};
/** User + system CPU of a process from /proc, ms. */
const cpuMsOf = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime in clock ticks (100/s)
};
/** Descendant processes of `pid` whose command line names Chromium. */
const chromiumUnder = (pid) => {
  const out = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' });
  const rows = out.trim().split('\n').map((l) => l.trim().split(/\s+/)).map(([p, pp, ...a]) => ({ pid: Number(p), ppid: Number(pp), args: a.join(' ') }));
  const kids = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of rows) if (kids.has(r.ppid) && !kids.has(r.pid)) { kids.add(r.pid); grew = true; }
  }
  return rows.filter((r) => r.pid !== pid && kids.has(r.pid) && /chrom/i.test(r.args)).length;
};
/** `INFO commandstats` as name -> calls. */
const commandStats = async (redis) => {
  const out = new Map();
  for (const line of (await redis.info('commandstats')).split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (m) out.set(m[1], Number(m[2]));
  }
  return out;
};
/** Bytes clients have sent to redis-server (INFO stats). */
const netInputBytes = async (redis) => Number(/^total_net_input_bytes:(\d+)/m.exec(await redis.info('stats'))?.[1] ?? 0);

async function runAlone() {
  const { Redis } = await import(join(ROOT, 'packages/queue/node_modules/ioredis/built/index.js'));
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-'));
  const redisProcess = await new RedisProcess({ dir, appendonly: false }).start();
  const env = {
    REDIS_URL: redisProcess.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', TRAWL_ALLOW_PRIVATE_TARGETS: 'true',
    TRAWL_BOOTSTRAP_API_KEY: 'tr-bench-key-0123456789', TRAWL_WORKER_PORT: '0', TRAWL_CRAWL_HOST_RATE_PER_SEC: '0',
    ...roleEnv(dir),
  };
  const cpuProf = argText('cpu-prof', '');
  // The worker's V8 heap cap, MB, as infra/k8s/base/worker-http.yaml runs it (its args); 0: V8's
  // own default, sized from the machine's memory, which grows the heap to what the crawl's garbage
  // rate suggests and keeps it (not a leak: RSS flat with the cap).
  const heapMb = arg('worker-heap-mb', MODE === 'memory' ? 640 : 0);
  // A known metrics port: the memory mode reads the worker's heap figures there.
  const probe = createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  env.TRAWL_WORKER_PORT = String(probe.address().port);
  await new Promise((r) => probe.close(r));
  const logger = createLogger({ role: 'bench', level: 'silent' });
  const api = await startApi(loadConfig(apiConfigSchema, env), { logger });
  // --worker-log FILE keeps the worker's info log there.
  const workerLog = argText('worker-log', '');
  const worker = spawn(process.execPath, [
    ...(cpuProf ? ['--cpu-prof', '--cpu-prof-dir', cpuProf] : []), ...(heapMb > 0 ? [`--max-old-space-size=${heapMb}`] : []),
    join(ROOT, 'apps/worker/dist/main.js'),
  ], {
    env: { ...process.env, ...env, TRAWL_BLOB_PUBLIC_URL: api.url, ...(workerLog ? { LOG_LEVEL: 'info' } : {}) },
    stdio: ['ignore', workerLog ? openSync(workerLog, 'w') : 'ignore', 'inherit'],
  });
  const exited = new Promise((r) => worker.once('exit', r));
  const team = await api.teams.resolveKey(env.TRAWL_BOOTSTRAP_API_KEY);
  await api.teams.update(team.id, { concurrency: CONCURRENCY, ratePerMinute: 1_000_000 });
  const cluster = { url: api.url, key: env.TRAWL_BOOTSTRAP_API_KEY };
  const redis = new Redis(redisProcess.url);
  const hooks = await startWebhookReceiver();
  const onJena = argText('site', 'generated') === 'jena';
  const site = onJena ? await startStaticSite(JENA, 'https://jena.apache.org') : await GeneratedSite.start({ pages: PAGES });
  const seed = onJena ? `${site.origin}/` : site.url('/');
  const warm = await GeneratedSite.start({ pages: arg('warm-pages', MODE === 'memory' ? 3000 : 100) });
  try {
    // Script names by SHA: each script is sent in full (EVAL) the first time, during the warm-up.
    const scriptNames = new Map();
    const watch = () => RedisMonitor.start(redis.options.host, redis.options.port);
    const learn = MODE === 'profile' ? await watch() : undefined;
    learn?.on(({ args, source }) => {
      if (source === 'lua' || String(args[0]).toLowerCase() !== 'eval') return;
      const lua = String(args[1]);
      const line = lua.split('\n').map((l) => l.trim()).find((l) => /^--\[?\[?\s*\w/.test(l) || /^local function (?!finish|maybeComplete)/.test(l) || /^if |^local \w+ = redis/.test(l));
      scriptNames.set(createHash('sha1').update(lua).digest('hex'), (line ?? lua.slice(0, 60)).replace(/[|\n]/g, ' ').slice(0, 70));
    });
    const warmSamples = [];
    const warmSampler = MODE === 'memory' ? setInterval(() => warmSamples.push(rssOf(worker.pid)), 250) : undefined;
    const warmRun = await measure('trawl', trawlCrawl, handle(warm.url('/'), warm), { cluster, hooks });
    clearInterval(warmSampler);
    learn?.stop();
    if (warmRun.skipped) throw new Error(`warm-up crawl: ${warmRun.skipped}`);
    const before = await commandStats(redis);
    const bytesBefore = await netInputBytes(redis);
    const cpu0 = cpuMsOf(worker.pid);
    // Round trips: commands sent by clients (MONITOR marks the ones run inside scripts as `lua`).
    const trips = new Map();
    const monitor = MODE === 'profile' ? await watch() : undefined;
    monitor?.on(({ args, source }) => {
      if (source === 'lua') return;
      const name = String(args[0]).toLowerCase();
      const key = name === 'evalsha' ? `evalsha ${String(args[1]).slice(0, 8)}: ${scriptNames.get(String(args[1])) ?? '?'}` : name;
      trips.set(key, (trips.get(key) ?? 0) + 1);
    });
    const samples = [];
    const sampler = setInterval(() => samples.push(rssOf(worker.pid)), 250);
    // Heap and external memory from the worker's metrics (prom-client defaults), every 2 s.
    const heaps = [];
    const heapSampler = MODE === 'memory' ? setInterval(() => {
      fetch(`http://127.0.0.1:${env.TRAWL_WORKER_PORT}/metrics`).then((res) => res.text()).then((text) => {
        const value = (name) => Number(new RegExp(`^trawl_${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1]);
        heaps.push({ heap: value('nodejs_heap_size_used_bytes'), external: value('nodejs_external_memory_bytes') });
      }).catch((err) => { heaps.error ??= String(err.cause ?? err); });
    }, 2000) : undefined;
    const r = await measure('trawl', trawlCrawl, handle(seed, site), { cluster, hooks });
    clearInterval(sampler);
    clearInterval(heapSampler);
    monitor?.stop();
    if (r.skipped) throw new Error(`crawl: ${r.skipped}`);
    const cpuMs = cpuMsOf(worker.pid) - cpu0;
    const after = await commandStats(redis);
    const bytesIn = await netInputBytes(redis) - bytesBefore;
    const pages = r.pages;
    console.log(`\n## Trawl alone, ${onJena ? 'jena (256 pages)' : `generated site (${PAGES} pages)`}, concurrency ${CONCURRENCY}: ${pages} documents in ${f(r.elapsedMs / 1000, 2)} s, ${f(r.pagesPerSec)} pages/s${r.lagMs !== undefined ? `, completed webhook ${f(r.lagMs)} ms after the last page webhook` : ''}`);
    console.log(`worker roles ${ROLES}; worker CPU: ${f(cpuMs / pages, 2)} ms per page`);
    if (MODE === 'profile') {
      const rows = [...after].map(([name, calls]) => [name, calls - (before.get(name) ?? 0)]).filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1]);
      const total = rows.reduce((n, [, c]) => n + c, 0);
      const scripts = rows.filter(([name]) => /^(evalsha|eval|fcall)$/.test(name)).reduce((n, [, c]) => n + c, 0);
      console.log(`Redis commands per page (calls inside scripts included): ${f(total / pages, 1)}; script calls per page: ${f(scripts / pages, 2)}`);
      console.log('\n| command | calls | per page |\n|---|---|---|');
      for (const [name, calls] of rows) console.log(`| ${name} | ${calls} | ${f(calls / pages, 2)} |`);
      const tripRows = [...trips].sort((a, b) => b[1] - a[1]);
      const tripTotal = tripRows.reduce((n, [, c]) => n + c, 0);
      console.log(`\nRound trips per page (commands sent by clients, MONITOR): ${f(tripTotal / pages, 1)}; bytes sent to Redis per page: ${f(bytesIn / pages / 1024, 1)} KiB`);
      console.log('\n| command sent | calls | per page |\n|---|---|---|');
      for (const [name, calls] of tripRows) console.log(`| ${name} | ${calls} | ${f(calls / pages, 2)} |`);
    } else {
      const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
      /** Mean of the first and of the last quarter of `xs`. */
      const quarters = (xs) => {
        const q = Math.max(1, Math.floor(xs.length / 4));
        return [mean(xs.slice(0, q)), mean(xs.slice(-q))];
      };
      if (warmSamples.length > 0) {
        const [wFirst, wLast] = quarters(warmSamples);
        console.log(`warm-up crawl (${warmRun.pages} pages, the worker cold${warmRun.note ? `; ${warmRun.note}` : ''}): worker RSS first quarter ${f(wFirst / 2 ** 20)} MB, last quarter ${f(wLast / 2 ** 20)} MB, ratio ${f(wLast / wFirst, 3)}`);
      }
      const [first, last] = quarters(samples);
      console.log(`worker RSS: first quarter ${f(first / 2 ** 20)} MB, last quarter ${f(last / 2 ** 20)} MB, ratio ${f(last / first, 3)} (${samples.length} samples, peak ${f(Math.max(...samples) / 2 ** 20)} MB; heap cap ${heapMb > 0 ? `${heapMb} MB` : "V8's default"})`);
      const tenths = (xs) => Array.from({ length: 10 }, (_, i) => xs[Math.min(xs.length - 1, Math.floor(((i + 0.5) * xs.length) / 10))]);
      console.log(`worker RSS by tenth of the crawl, MB: ${tenths(samples).map((x) => f(x / 2 ** 20, 0)).join(' ')}`);
      if (heaps.error) console.log(`worker metrics not read: ${heaps.error}`);
      if (heaps.length > 0) {
        console.log(`worker heap used by tenth, MB: ${tenths(heaps).map((x) => f(x.heap / 2 ** 20, 0)).join(' ')}`);
        console.log(`worker external memory by tenth, MB: ${tenths(heaps).map((x) => f(x.external / 2 ** 20, 0)).join(' ')}`);
      }
      console.log(`Chromium processes under the worker after the crawl: ${chromiumUnder(worker.pid)}`);
    }
  } finally {
    worker.kill('SIGTERM');
    await exited;
    redis.disconnect();
    await api.close({ graceMs: 1000 });
    await hooks.close();
    await site.close();
    await warm.close();
    await redisProcess.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const f = (x, d = 1) => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d));
// What measure() needs of a site: the seed URL and its request counter.
const handle = (url, site) => ({ url, resetCounters: () => site.resetCounters(), totalRequests: () => site.totalRequests() });
if (MODE === 'profile' || MODE === 'memory') {
  await runAlone();
  process.exit(0);
}
if (MODE === 'hops') {
  await runHops();
  process.exit(0);
}
if (MODE === 'cpu') {
  await runCpu();
  process.exit(0);
}

/**
 * --mode cpu: Trawl's pages/s and CPU per page, crawl after crawl, with the cluster in this process (see
 * the header). A round's CPU is this process's (process.cpuUsage: every thread) and redis-server's
 * (INFO cpu) over the crawl, divided by its documents.
 */
async function runCpu() {
  const { onJena, site, seed, warm, cluster, hooks, close } = await inProcessTrawl();
  const { Redis } = await import(join(ROOT, 'packages/queue/node_modules/ioredis/built/index.js'));
  const redis = new Redis(cluster.redisUrl);
  const redisCpuMs = async () => {
    const info = await redis.info('cpu');
    const num = (name) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
    return (num('used_cpu_user') + num('used_cpu_sys')) * 1000;
  };
  const crawl = (url, s) => measure('trawl', (seedUrl, c) => trawlCrawl(seedUrl, { ...c, pageHooks: false }), handle(url, s), { cluster, hooks });
  try {
    await crawl(warm.url('/'), warm);
    if (onJena) await crawl(seed, site);
    console.log(`\n## Trawl in one process, ${onJena ? 'jena' : `generated site (${PAGES} pages)`}, concurrency ${CONCURRENCY}\n`);
    console.log('| round | documents | pages/s | process CPU ms / page | Redis CPU ms / page |\n|---|---|---|---|---|');
    for (let round = 1; round <= ROUNDS; round++) {
      const cpu0 = process.cpuUsage();
      const redis0 = await redisCpuMs();
      const r = await crawl(seed, site);
      if (r.skipped) throw new Error(`crawl: ${r.skipped}`);
      const cpu = process.cpuUsage(cpu0);
      const redisMs = await redisCpuMs() - redis0;
      console.log(`| ${round} | ${r.pages} | ${f(r.pagesPerSec)} | ${f((cpu.user + cpu.system) / 1000 / r.pages, 2)} | ${f(redisMs / r.pages, 2)} |`);
    }
  } finally {
    redis.disconnect();
    await close();
  }
}

/** The site of --site (generated or jena), a 100-page warm-up site and the cluster in this process. */
async function inProcessTrawl() {
  const onJena = argText('site', 'generated') === 'jena';
  const site = onJena ? await startStaticSite(JENA, 'https://jena.apache.org') : await GeneratedSite.start({ pages: PAGES });
  const seed = onJena ? `${site.origin}/` : site.url('/');
  const warm = await GeneratedSite.start({ pages: 100 });
  const cluster = await startCluster();
  const hooks = await startWebhookReceiver();
  const close = async () => {
    await hooks.close();
    await cluster.close();
    await site.close();
    await warm.close();
  };
  return { onJena, site, seed, warm, cluster, hooks, close };
}

/**
 * --mode hops: one Trawl crawl of the generated site with the cluster in this process, and where a
 * page's time goes, hop by hop (the `trawl:hop` diagnostics channel: admission, BullMQ add, pick-up,
 * each pipeline step, recording, release), with the page's whole wall time for comparison.
 */
async function runHops() {
  const { subscribe } = await import('node:diagnostics_channel');
  const { onJena, site, seed, warm, cluster, hooks, close } = await inProcessTrawl();
  try {
    await measure('trawl', trawlCrawl, handle(warm.url('/'), warm), { cluster, hooks });
    const hops = new Map();
    subscribe('trawl:hop', ({ hop, ms }) => {
      if (!hops.has(hop)) hops.set(hop, []);
      hops.get(hop).push(ms);
    });
    const r = await measure('trawl', trawlCrawl, handle(seed, site), { cluster, hooks });
    console.log(`\n## Trawl hops, ${onJena ? 'jena' : `generated site (${PAGES} pages)`}, ${r.requests} site requests, concurrency ${CONCURRENCY}: ${r.pages} documents in ${f(r.elapsedMs / 1000, 2)} s, ${f(r.pagesPerSec)} pages/s; page wall time at this concurrency: ${f((CONCURRENCY * r.elapsedMs) / r.pages)} ms\n`);
    console.log('| hop | count | mean ms | p50 ms | p90 ms | ms per page |\n|---|---|---|---|---|---|');
    for (const [hop, ms] of [...hops].sort((a, b) => b[1].reduce((x, y) => x + y, 0) - a[1].reduce((x, y) => x + y, 0))) {
      const sorted = [...ms].sort((a, b) => a - b);
      const sum = ms.reduce((a, b) => a + b, 0);
      console.log(`| ${hop} | ${ms.length} | ${f(sum / ms.length, 2)} | ${f(sorted[Math.floor(ms.length / 2)], 2)} | ${f(sorted[Math.floor(ms.length * 0.9)], 2)} | ${f(sum / r.pages, 2)} |`);
    }
  } finally {
    await close();
  }
}

const jena = await startStaticSite(JENA, 'https://jena.apache.org');
const generated = await GeneratedSite.start({ pages: PAGES });
const warmSite = await GeneratedSite.start({ pages: 100 });
const cluster = await startCluster();
const hooks = await startWebhookReceiver();
// `trawl` crawls with a user's defaults (its webhook hears only the end); `trawl + page webhooks` also
// delivers a POST per page to this process (CPU the other crawlers do not spend), for the lag figure.
const crawlers = [
  ['minimal', minimalCrawl], ['crawlee', crawleeCrawl],
  ['trawl', (seed, c) => trawlCrawl(seed, { ...c, pageHooks: false })],
  ['trawl + page webhooks', (seed, c) => trawlCrawl(seed, { ...c, pageHooks: true })],
];
const ctx = { cluster, hooks };

const unavailable = new Map();
for (const [name, crawl] of crawlers) {
  const r = await measure(name, crawl, handle(warmSite.url('/'), warmSite), ctx);
  // A crawler that cannot run (no crawl route yet) is skipped everywhere instead of failing each round.
  if (r.skipped) unavailable.set(name, r);
  // The Jena pages too (real documentation pages, 20-100 KB, unlike the generated ones): every
  // crawler's code for such pages (Trawl's conversion thread included) is warm before the first round.
  else await measure(name, crawl, handle(`${jena.origin}/`, jena), ctx);
}
const sites = [
  { name: 'jena (256 pages)', site: handle(`${jena.origin}/`, jena) },
  { name: `generated (${PAGES} pages)`, expected: generated.reachable().length, site: handle(generated.url('/'), generated) },
];
const results = [];
for (const s of sites) {
  const runs = new Map(crawlers.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate the order each round so drift in machine load does not favour one crawler.
    const order = crawlers.map((_, i) => crawlers[(i + round) % crawlers.length]);
    for (const [name, crawl] of order) {
      const done = runs.get(name);
      // One round of a slow crawl is long enough to average out noise, and keeps the bench bounded.
      if (done.length > 0 && (done[0].skipped || done[0].elapsedMs > SLOW_MS)) continue;
      done.push(unavailable.get(name) ?? await measure(name, crawl, s.site, ctx));
    }
  }
  results.push({ site: s.name, expected: s.expected, rows: crawlers.map(([name]) => median(runs.get(name))) });
}

console.log(`\n## Crawl throughput, concurrency ${CONCURRENCY}, median of up to ${ROUNDS} rounds (same process, loopback sites; worker roles ${ROLES})\n`);
console.log('| site | crawler | documents | 2xx HTML | site requests | seconds | pages/s | Trawl / this | note |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const { site, expected, rows } of results) {
  const trawl = rows.find((r) => r.crawler === 'trawl' && !r.skipped);
  for (const r of rows) {
    if (r.skipped) {
      console.log(`| ${site} | ${r.crawler} | - | - | - | - | - | - | skipped: ${r.skipped} |`);
      continue;
    }
    const ratio = trawl && !r.crawler.startsWith('trawl') ? `${(trawl.pagesPerSec / r.pagesPerSec).toFixed(2)}x` : '-';
    const pageCounts = new Set(r.rounds.map((x) => x.pages));
    const notes = [r.note, expected !== undefined && r.pages !== expected ? `expected ${expected}` : undefined,
      pageCounts.size > 1 ? `documents per round: ${[...pageCounts].join('/')}` : undefined,
      r.errors ? `${r.errors} failed requests (first: ${r.firstError})` : undefined,
      r.status && r.status !== 'completed' ? `status ${r.status}` : undefined,
      r.webhookPages !== undefined && r.webhookPages !== r.pages ? `${r.webhookPages} documents in page webhooks` : undefined,
      r.lagMs !== undefined ? `completed webhook ${f(r.lagMs)} ms after the last page webhook` : undefined,
      // The order must hold in every round, not only the median one.
      r.rounds.filter((x) => x.lagMs !== undefined).length > 1 ? `lag per round ${r.rounds.map((x) => (x.lagMs === undefined ? '-' : f(x.lagMs))).join(' / ')} ms` : undefined,
      r.completedAtLagMs !== undefined ? `completedAt ${f(r.completedAtLagMs, 0)} ms after the last document` : undefined,
    ].filter(Boolean).join('; ');
    const cells = [site, r.crawler, r.pages, r.ok, r.requests, f(r.elapsedMs / 1000, 2), f(r.pagesPerSec), ratio, notes];
    console.log(`| ${cells.join(' | ')} |`);
  }
}
mkdirSync(join(ROOT, '.bench'), { recursive: true });
writeFileSync(join(ROOT, '.bench/crawl.json'), JSON.stringify({ concurrency: CONCURRENCY, pages: PAGES, rounds: ROUNDS, results }, null, 2));

await hooks.close();
await cluster.close();
await warmSite.close();
await generated.close();
await jena.close();
