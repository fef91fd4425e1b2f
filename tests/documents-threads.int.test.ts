import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ChildProcess } from 'node:child_process';
import { FixtureSite, buildPdf, waitFor } from '@trawl/testing';
import { BOOT_KEY, TestCluster } from './helpers/cluster.js';
import { kill, spawnWorkerProcess } from './helpers/worker-process.js';

// The documents role as deployed: a worker process (built code) parsing on threads with a small heap
// limit each. A file that needs more memory costs its thread, not the process.
let cluster: TestCluster;
let site: FixtureSite;
let worker: ChildProcess;
let metricsPort: number;

const SMALL = buildPdf([[
  { text: 'Threaded Parse Title', y: 80, size: 22, bold: true },
  ...Array.from({ length: 8 }, (_, i) => ({ text: `Body line ${i + 1} of the text parsed on a thread, long enough to be body text.`, y: 120 + i * 14 })),
]]);
const HUGE = buildPdf(Array.from({ length: 2000 }, (_, p) => Array.from({ length: 30 }, (_, i) => ({ text: `Page ${p} line ${i} with some words on it.`, y: 60 + i * 11 }))));
// Three million rows: far more than a 160 MiB heap can hold as a table.
const HUGE_CSV = 'a,b\n' + '1,2\n'.repeat(3_000_000);

beforeAll(async () => {
  site = await new FixtureSite()
    .route('/small.pdf', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(SMALL);
    })
    .route('/huge.pdf', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      res.end(HUGE);
    })
    .start();
  cluster = await TestCluster.start({
    TRAWL_WORKER_ROLES: 'http,documents', TRAWL_DOCUMENT_MEMORY_MB: '160', TRAWL_DOCUMENT_MAX_CELLS: '100000000',
    TRAWL_DOCUMENT_CONCURRENCY: '1', TRAWL_DOCUMENT_THREAD_IDLE_MS: '1000',
  }, { worker: false });
  ({ child: worker, metricsPort } = await spawnWorkerProcess(cluster.env));
}, 60_000);
afterAll(async () => {
  await kill(worker, 'SIGKILL');
  await cluster.stop();
  await site.stop();
}, 30_000);

const scrape = (body: Record<string, unknown>) => cluster.call('POST', '/v2/scrape', { body });

/** `trawl_document_parse_threads` of the worker's /metrics. */
async function parseThreads(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return Number(/^trawl_document_parse_threads(?:{[^}]*})? (\d+)$/m.exec(text)?.[1]);
}

describe('documents role on threads', () => {
  it('parses a PDF on a thread, started for it and ended once idle', async () => {
    expect(await parseThreads()).toBe(0);
    const r = await scrape({ url: site.url('/small.pdf') });
    expect(r.status).toBe(200);
    expect(r.body.data.markdown).toMatch(/^#+ Threaded Parse Title$/m);
    await waitFor(async () => (await parseThreads()) === 0, { what: 'the idle parse thread to end' });
    expect((await scrape({ url: site.url('/small.pdf') })).body.data.markdown).toMatch(/Threaded Parse Title/);
  }, 60_000);

  it('a file that exhausts the thread heap answers DOCUMENT_TOO_LARGE and the process lives on', async () => {
    const form = new FormData();
    form.append('options', JSON.stringify({ timeout: 60_000 }));
    form.append('file', new Blob([HUGE_CSV], { type: 'text/csv' }), 'huge.csv');
    const res = await fetch(`${cluster.api.url}/v2/parse`, { method: 'POST', headers: { authorization: `Bearer ${BOOT_KEY}` }, body: form });
    const body = await res.json() as { code?: string; details?: { limit?: string } };
    expect(res.status).toBe(413);
    expect(body).toMatchObject({ code: 'DOCUMENT_TOO_LARGE', details: { limit: 'memory' } });
    expect(worker.exitCode).toBeNull();
    expect((await scrape({ url: site.url('/small.pdf') })).status).toBe(200);
  }, 90_000);

  it('a parse past its deadline is cut off and the thread replaced', async () => {
    const r = await scrape({ url: site.url('/huge.pdf'), timeout: 3000 });
    expect(r).toMatchObject({ status: 408, body: { code: 'SCRAPE_TIMEOUT' } });
    expect((await scrape({ url: site.url('/small.pdf') })).status).toBe(200);
  }, 30_000);
});
