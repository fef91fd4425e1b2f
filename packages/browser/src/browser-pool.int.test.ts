import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { FixtureSite } from '@trawl/testing';
import { BrowserFetcher } from './browser-fetcher.js';
import { BrowserPool, HEADLESS_SHELL_PATH, processTreeMemory, processTreeRss, readProcTable, type BrowserPoolEvent } from './browser-pool.js';

jest.setTimeout(60_000);

const site = new FixtureSite();
const pools: BrowserPool[] = [];

beforeAll(async () => {
  site.page('/plain', '<html><body><p>Plain page</p></body></html>');
  await site.start();
});

afterAll(async () => {
  for (const pool of pools) await pool.close();
  await site.stop();
});

/** A pool and the pid its first browser reports, after one page through it. */
async function launchedPid(): Promise<number | undefined> {
  const events: BrowserPoolEvent[] = [];
  const pool = new BrowserPool({ onEvent: (e) => events.push(e) });
  pools.push(pool);
  const r = await new BrowserFetcher({ pool, smartWaitMaxMs: 500 }).fetch({
    url: site.url('/plain'), signal: AbortSignal.timeout(45_000), timeoutMs: 45_000, maxBytes: 1_000_000,
  });
  expect(r.text).toContain('Plain page');
  const launched = events.find((e) => e.type === 'launched');
  return launched?.type === 'launched' ? launched.pid : undefined;
}

/** Command lines (switches) of the processes below `root`, the root included. */
async function treeCommandLines(root: number): Promise<string[][]> {
  return (await treeProcesses(root)).map((p) => p.switches);
}

/** The processes below `root`, the root included, with their switches. */
async function treeProcesses(root: number): Promise<Array<{ pid: number; switches: string[] }>> {
  const parents = new Map<number, number>();
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const status = await readFile(`/proc/${name}/status`, 'utf8').catch(() => '');
    parents.set(Number(name), Number(/^PPid:\s+(\d+)/m.exec(status)?.[1] ?? 0));
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid, hops = 0; p !== undefined && p > 1 && hops < 64; p = parents.get(p), hops += 1) if (p === root) return true;
    return false;
  };
  const out: Array<{ pid: number; switches: string[] }> = [];
  for (const pid of parents.keys()) {
    // Chromium's child processes rewrite their command line as one space-separated string.
    if (inTree(pid)) out.push({ pid, switches: (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split(/[\0 ]/) });
  }
  return out;
}

describe('BrowserPool', () => {
  it('keeps Playwright\'s disabled features and starts no omnibox WebUI renderers with a context', async () => {
    const events: BrowserPoolEvent[] = [];
    const pool = new BrowserPool({ onEvent: (e) => events.push(e) });
    pools.push(pool);
    const lines = await pool.withContext({ flavor: 'standard', contextOptions: {}, signal: AbortSignal.timeout(45_000) }, async (context) => {
      const page = await context.newPage();
      await page.goto(site.url('/plain'));
      const launched = events.find((e) => e.type === 'launched');
      return treeCommandLines(launched?.type === 'launched' ? launched.pid ?? 0 : 0);
    });
    const browserSwitches = lines.find((switches) => !switches.some((s) => s.startsWith('--type='))) ?? [];
    // Chromium keeps the last --disable-features: it must still hold every feature an earlier one (Playwright's) disables.
    const disabled = browserSwitches.filter((s) => s.startsWith('--disable-features=')).map((s) => s.slice('--disable-features='.length).split(','));
    expect(disabled.length).toBeGreaterThan(0);
    const last = new Set(disabled.at(-1));
    for (const feature of disabled.flat()) expect([feature, last.has(feature)]).toEqual([feature, true]);
    // Chromium 156 preloads the omnibox popups of each context (window) in WebUI renderers.
    expect(lines.filter((switches) => switches.includes('--top-chrome-webui'))).toEqual([]);
    expect(lines.filter((switches) => switches.includes('--type=renderer')).length).toBeGreaterThan(0);
  });

  it('keeps each context\'s renderer across its same-site navigations while another context is open', async () => {
    const events: BrowserPoolEvent[] = [];
    const pool = new BrowserPool({ onEvent: (e) => events.push(e) });
    pools.push(pool);
    const signal = AbortSignal.timeout(45_000);
    const renderers = new Set<number>();
    await pool.withContext({ flavor: 'standard', contextOptions: {}, signal }, (a) => pool.withContext({ flavor: 'standard', contextOptions: {}, signal }, async (b) => {
      const pages = [await a.newPage(), await b.newPage()];
      for (let i = 0; i < 4; i += 1) {
        for (const page of pages) {
          await page.goto(site.url(`/plain?n=${i}`));
          const launched = events.find((e) => e.type === 'launched');
          for (const p of await treeProcesses(launched?.type === 'launched' ? launched.pid ?? 0 : 0)) {
            if (p.switches.includes('--type=renderer')) renderers.add(p.pid);
          }
        }
      }
    }));
    // One renderer per page, and a spare at most. With Chromium's spare renderer for site-per-process,
    // every navigation of one context after another context's took a new renderer process (9 for these 8).
    expect(renderers.size).toBeLessThanOrEqual(4);
  });

  it('runs the standard browser on Chromium\'s headless shell when it is installed, the stealth one on the full browser', async () => {
    const binaries = async (options: { headlessShellPath?: string | null; executablePath?: string }, flavor: 'standard' | 'stealth', failed: string[] = []) => {
      const events: BrowserPoolEvent[] = [];
      const pool = new BrowserPool({ ...options, onEvent: (e) => events.push(e) });
      pools.push(pool);
      const r = await new BrowserFetcher({ pool, smartWaitMaxMs: 500 }).fetch({
        url: site.url('/plain'), signal: AbortSignal.timeout(45_000), timeoutMs: 45_000, maxBytes: 1_000_000, stealth: flavor === 'stealth',
      });
      expect(r.text).toContain('Plain page');
      await pool.close();
      failed.push(...events.flatMap((e) => (e.type === 'shell-failed' ? [e.executablePath] : [])));
      return events.flatMap((e) => (e.type === 'launched' ? [e.executablePath] : []));
    };
    const shellInstalled = existsSync(HEADLESS_SHELL_PATH);
    expect(await binaries({}, 'standard')).toEqual([shellInstalled ? HEADLESS_SHELL_PATH : '/usr/bin/chromium']);
    expect(await binaries({}, 'stealth')).toEqual(['/usr/bin/chromium']);
    expect(await binaries({ headlessShellPath: null }, 'standard')).toEqual(['/usr/bin/chromium']);
    expect(await binaries({ headlessShellPath: '/nonexistent/headless-shell' }, 'standard')).toEqual(['/usr/bin/chromium']);
    // An operator's own Chromium is not swapped for the shell; a shell that does not start is dropped.
    expect(await binaries({ executablePath: '/usr/lib/chromium/chromium' }, 'standard')).toEqual(['/usr/lib/chromium/chromium']);
    const failed: string[] = [];
    expect(await binaries({ headlessShellPath: '/bin/false' }, 'standard', failed)).toEqual(['/usr/bin/chromium']);
    expect(failed).toEqual(['/bin/false']);
  });

  it('finds its own browser process when another pool\'s browser already runs in the process', async () => {
    // The memory watch kills renderers below this pid: it must be this pool's browser, not the first
    // Chromium child of the process (another pool's, or one an earlier test left running).
    const first = await launchedPid();
    const second = await launchedPid();
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(await processTreeRss(second ?? 0)).toBeGreaterThan(0);
  });

  it('reads every process of the table, a few dozen a turn of the event loop', async () => {
    const children: ChildProcess[] = Array.from({ length: 80 }, () => spawn('sleep', ['30'], { stdio: 'ignore' }));
    try {
      await Promise.all(children.map((c) => new Promise((resolve, reject) => {
        c.once('spawn', resolve);
        c.once('error', reject);
      })));
      // Turns of the event loop that ran while the table was read.
      let turns = 0;
      let reading = true;
      const turn = () => {
        if (!reading) return;
        turns += 1;
        setImmediate(turn);
      };
      setImmediate(turn);
      const table = await readProcTable();
      reading = false;
      const found = new Map(table.map((p) => [p.pid, p]));
      expect(children.filter((c) => found.get(c.pid!)?.ppid !== process.pid).map((c) => c.pid)).toEqual([]);
      expect(found.get(children[0]!.pid!)?.name).toBe('sleep');
      // More than a turn's share of processes (80 children at least): the scan let the loop run between its shares.
      expect(table.length).toBeGreaterThan(80);
      expect(turns).toBeGreaterThan(0);
    } finally {
      for (const c of children) c.kill('SIGKILL');
    }
  });

  it('measures a browser by PSS, which counts the pages its processes share once, not per process', async () => {
    // The RSS sum counts Chromium's shared libraries and shared memory in every renderer: a browser
    // recycled on it was relaunched every few pages of a crawl. PSS divides each shared page among
    // the processes mapping it.
    const pid = await launchedPid();
    const { rssBytes, pssBytes } = await processTreeMemory(pid ?? 0);
    expect(pssBytes).toBeGreaterThan(0);
    expect(pssBytes).toBeLessThan(rssBytes);
  });

  it('recycles a browser whose memory passes the limit, checked every 10 contexts', async () => {
    const events: BrowserPoolEvent[] = [];
    const pool = new BrowserPool({ recycleAboveRssBytes: 1, onEvent: (e) => events.push(e) });
    pools.push(pool);
    for (let i = 0; i < 10; i += 1) {
      await pool.withContext({ flavor: 'standard', contextOptions: {}, signal: AbortSignal.timeout(45_000) }, async () => undefined);
    }
    expect(events.filter((e) => e.type === 'recycled')).toEqual([{ type: 'recycled', flavor: 'standard', reason: 'memory' }]);
    expect(pool.stats().recycles).toBe(1);
  });
});
