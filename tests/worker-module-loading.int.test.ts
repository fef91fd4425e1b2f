import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FixtureSite } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';
import { kill, spawnWorkerProcess, type WorkerProcess } from './helpers/worker-process.js';

/**
 * The loading rule of the engine packages: a worker loads Playwright, the ad blocker and pdf.js only
 * for the roles that use them. Each worker is a real process of the built code, preloaded with a hook
 * that writes every module it resolves to a file.
 */
const RECORDER = pathToFileURL(join(import.meta.dirname ?? '', 'helpers', 'record-modules.mjs')).href;
const BROWSER_ONLY = /\/node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?(playwright-core|playwright-extra|playwright|puppeteer-extra-plugin-stealth)\//;
const AD_BLOCKER = /\/node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?(@ghostery\/adblocker|@duckduckgo\/autoconsent)\//;
const PDF = /\/node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?(pdfjs-dist|pdf-parse)\//;

let cluster: TestCluster;
let site: FixtureSite;
let logDir: string;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  logDir = mkdtempSync(join(tmpdir(), 'trawl-modules-'));
  site = await new FixtureSite()
    .route('/page', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><head><title>Loaded</title></head><body><main><p>Scraped by an http worker.</p></main></body></html>');
    })
    .start();
  cluster = await TestCluster.start({}, { worker: false });
}, 30_000);

afterAll(async () => {
  for (const w of workers) await kill(w.child, 'SIGKILL');
  await cluster.stop();
  await site.stop();
  rmSync(logDir, { recursive: true, force: true });
}, 30_000);

/** Starts a worker with `roles`; returns a reader of the modules it has loaded so far. */
async function recordedWorker(roles: string): Promise<() => string[]> {
  const log = join(logDir, `${roles.replace(/,/g, '-')}.log`);
  workers.push(await spawnWorkerProcess(
    // The browser role keeps screenshots in the local blob store, which needs an absolute base URL.
    { ...cluster.env, TRAWL_BLOB_PUBLIC_URL: cluster.api.url, TRAWL_WORKER_ROLES: roles, TRAWL_TEST_MODULE_LOG: log },
    { nodeArgs: ['--import', RECORDER] },
  ));
  return () => readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

describe('engine package loading', () => {
  it('an http worker scrapes without loading Playwright, the ad blocker or pdf.js', async () => {
    const modules = await recordedWorker('http');
    const team = await cluster.team();
    const res = await cluster.call('POST', '/v2/scrape', { key: team.key, body: { url: site.url('/page'), formats: ['markdown'] } });
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toContain('Scraped by an http worker.');
    const loaded = modules();
    // The recorder works: the worker's own code and the HTTP engine are in the log.
    expect(loaded.some((m) => m.includes('/packages/scrape-engine/dist/'))).toBe(true);
    expect(loaded.filter((m) => BROWSER_ONLY.test(m) || AD_BLOCKER.test(m) || PDF.test(m))).toEqual([]);
    expect(loaded.filter((m) => m.includes('/packages/browser/dist/'))).toEqual([]);
  }, 60_000);

  it('a documents worker loads no browser engine', async () => {
    const modules = await recordedWorker('documents');
    const loaded = modules();
    expect(loaded.some((m) => m.includes('/packages/documents/dist/'))).toBe(true);
    expect(loaded.filter((m) => BROWSER_ONLY.test(m) || AD_BLOCKER.test(m) || m.includes('/packages/browser/dist/'))).toEqual([]);
  }, 60_000);

  it('a browser worker does load Playwright and the ad blocker', async () => {
    const modules = await recordedWorker('browser');
    const loaded = modules();
    expect(loaded.some((m) => BROWSER_ONLY.test(m))).toBe(true);
    expect(loaded.some((m) => AD_BLOCKER.test(m))).toBe(true);
  }, 60_000);
});
