import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { TestCluster } from './helpers/cluster.js';
import { allDocuments, pathOf, watchCrawl } from './helpers/crawl-watch.js';
import { kill, spawnWorkerProcess, type WorkerProcess } from './helpers/worker-process.js';

jest.setTimeout(90_000);

/** `(a+)+$` against `/aaa…a!`: 2^40 paths for a backtracking engine, linear for RE2. */
const EVIL = '(a+)+$';
const RUN = 'a'.repeat(40);
const poison = (n: number) => `/${RUN}${'!'.repeat(n)}`;
const links = (paths: string[]) => paths.map((p) => `<a href="${p}">${p}</a>`).join('');

let cluster: TestCluster;
let worker: WorkerProcess;
let site: Server;
let origin = '';
let team: { id: string; key: string };
/** Status of the worker's /health/live, probed while it waits for a page of the crawl. */
let liveDuringCrawl: number | undefined;

beforeAll(async () => {
  site = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const page = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${body}</body></html>`);
    if (path === '/') return void page(`<h1>Home</h1>${links([...[1, 2, 3].map(poison), `/${RUN}`])}`);
    if (path === `/${RUN}`) {
      // The worker has checked the home page's poison links by now: it must still answer its probe.
      fetch(`http://127.0.0.1:${worker.metricsPort}/health/live`).then(
        (r) => { liveDuringCrawl = r.status; page(`<h1>Run</h1>${links([4, 5].map(poison))}`); },
        () => { liveDuringCrawl = -1; page('<h1>Run</h1>'); },
      );
      return;
    }
    if (path === '/basic') {
      if (req.headers.authorization === `Basic ${Buffer.from('alice:pa ss-9f3k').toString('base64')}`) return void page('<p>members only</p>');
      return void res.writeHead(401, { 'www-authenticate': 'Basic realm="t"' }).end('no');
    }
    if (path === '/file.pdf') return void res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4\n%\n');
    res.writeHead(404).end();
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  cluster = await TestCluster.start({ TRAWL_CRAWL_HOST_RATE_PER_SEC: '0' }, { worker: false });
  worker = await spawnWorkerProcess(cluster.env);
  team = await cluster.team({ concurrency: 2 });
});

afterAll(async () => {
  if (worker) await kill(worker.child, 'SIGKILL');
  await cluster?.stop();
  site?.close();
});

describe('crawl path patterns', () => {
  it('crawls with a catastrophic-backtracking pattern over matching paths while the worker stays live', async () => {
    const start = await cluster.call('POST', '/v2/crawl', { key: team.key, body: { url: `${origin}/`, includePaths: [EVIL], sitemap: 'skip' } });
    expect(start.status).toBe(200);
    const stream = await watchCrawl(cluster, start.body.id as string, { key: team.key });
    expect(stream.final?.status).toBe('completed');
    const { docs } = await allDocuments(cluster, start.body.id as string, 'crawl', team.key);
    expect(docs.map(pathOf).sort()).toEqual(['/', `/${RUN}`]);
    expect(liveDuringCrawl).toBe(200);
  });

  it('refuses patterns RE2 cannot run, naming them, for crawls and monitor crawl targets', async () => {
    const crawl = await cluster.call('POST', '/v2/crawl', { key: team.key, body: { url: `${origin}/`, excludePaths: ['^/ok', '^/(?!blog)'] } });
    expect(crawl.status).toBe(400);
    expect(crawl.body.code).toBe('BAD_REQUEST');
    expect(crawl.body.details.issues[0].path).toBe('excludePaths[1]');
    expect(crawl.body.error).toContain('"^/(?!blog)"');
    const monitor = await cluster.call('POST', '/v2/monitor', {
      key: team.key,
      body: { name: 'm', schedule: { cron: '0 * * * *' }, targets: [{ type: 'crawl', url: `${origin}/`, crawlOptions: { includePaths: ['(a)\\1'] } }] },
    });
    expect(monitor.status).toBe(400);
    expect(monitor.body.code).toBe('BAD_REQUEST');
    expect(monitor.body.details.issues[0].path).toBe('targets[0].crawlOptions.includePaths[0]');
    expect(monitor.body.error).toContain('"(a)\\\\1"');
  });
});

describe('credentials in the target URL', () => {
  it('are sent as Basic auth, shown without the password, and never logged', async () => {
    const url = `${origin.replace('://', '://alice:pa%20ss-9f3k@')}/basic`;
    const r = await cluster.call('POST', '/v2/scrape', { key: team.key, body: { url, formats: ['markdown'] } });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toContain('members only');
    expect(r.body.data.metadata.statusCode).toBe(200);
    expect(r.body.data.metadata.sourceURL).toBe(`${origin.replace('://', '://alice@')}/basic`);
    expect(r.body.data.metadata.url).toBe(`${origin}/basic`);
    // A failed scrape is logged with its URL (no documents role here: a PDF is unsupported).
    const failed = await cluster.call('POST', '/v2/scrape', { key: team.key, body: { url: url.replace('/basic', '/file.pdf') } });
    expect(failed.body.code).toBe('SCRAPE_UNSUPPORTED_CONTENT');
    const logged = worker.output();
    expect(logged).toContain(`"url":"${origin.replace('://', '://alice@')}/file.pdf"`);
    expect(logged).not.toContain('9f3k');
  });
});
