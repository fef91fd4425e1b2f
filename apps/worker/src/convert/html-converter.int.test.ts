import { afterAll, describe, expect, it } from '@jest/globals';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { runHtmlPipeline, type HtmlPipelineResult } from '@trawl/html';
import { TrawlError } from '@trawl/api-schema';
import { ThreadedHtmlConverter } from './html-converter.js';

// The conversion threads as the worker runs them (the built thread script: a thread cannot load .ts).
const THREAD = new URL('../../dist/convert/html-thread.js', import.meta.url);
const converters: ThreadedHtmlConverter[] = [];
afterAll(async () => {
  await Promise.all(converters.map((c) => c.close()));
});

/** Every page is a larger page; `idleInlineMaxMs` 0: every one goes to the thread. */
function converter(opts: { idleInlineMaxMs?: number; idleInlineBackoffMs?: number; jobsRunning?: () => number } = {}): ThreadedHtmlConverter {
  const c = new ThreadedHtmlConverter(THREAD, 1, { inlineMaxChars: 0, idleInlineMaxMs: 0, ...opts });
  converters.push(c);
  return c;
}

const PAGE = '\ufeff<html><head><title>T\u00eatu \u{1f600}</title></head><body><article><h1>Caf\u00e9</h1>'
  + '<p>Un texte assez long pour \u00eatre le contenu principal, avec des mots \u6f22\u5b57 et une suite. </p>'.repeat(20)
  + '</article><p>stray \ud83d half</p></body></html>';
const OPTS = { url: 'http://example.test/page', formats: { markdown: true, html: true, links: true } };

/** The conversion hops `fn` went through (the `trawl:hop` channel: where a page was converted). */
async function hopsOf(fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const onHop = (m: unknown) => {
    const { hop } = m as { hop: string };
    if (hop.startsWith('worker:html-')) seen.push(hop);
  };
  subscribe('trawl:hop', onHop);
  try {
    await fn();
  } finally {
    unsubscribe('trawl:hop', onHop);
  }
  return seen;
}

describe('threaded HTML conversion', () => {
  it('converts in the thread exactly as inline (a leading U+FEFF, astral characters, a lone surrogate)', async () => {
    const out = await converter().convert(PAGE, OPTS, new AbortController().signal);
    expect({ ...out, timings: {} }).toEqual({ ...runHtmlPipeline(PAGE, OPTS), timings: {} });
  });

  it('a page not decoded yet goes to the thread as its bytes, decoded there exactly as here, and is not decoded here', async () => {
    // Valid UTF-8 (as a fetched page's bytes): the lone surrogate of PAGE would not survive encoding.
    const text = PAGE.replace('stray \ud83d half', 'stray half');
    let decodedHere = 0;
    const bytes = { utf8: Buffer.from(text, 'utf8'), text: () => { decodedHere++; return text; } };
    const out = await converter().convert(bytes, OPTS, new AbortController().signal);
    expect(decodedHere).toBe(0);
    expect({ ...out, timings: {} }).toEqual({ ...runHtmlPipeline(text, OPTS), timings: {} });
    // The page keeps its own bytes (the thread got a copy).
    expect(bytes.utf8.toString('utf8')).toBe(text);
    // Converted inline, it is decoded here.
    const inline = converter({ idleInlineMaxMs: 60_000 });
    expect({ ...(await inline.convert(bytes, OPTS, new AbortController().signal)), timings: {} }).toEqual({ ...out, timings: {} });
    expect(decodedHere).toBe(1);
  });

  it('a conversion cut off by its deadline rejects with its reason, and the next one runs on a fresh thread', async () => {
    const c = converter();
    const deadline = new AbortController();
    const cut = c.convert(PAGE.repeat(200), OPTS, deadline.signal);
    deadline.abort(new TrawlError('SCRAPE_TIMEOUT', 'deadline'));
    await expect(cut).rejects.toMatchObject({ code: 'SCRAPE_TIMEOUT' });
    const out = await c.convert(PAGE, OPTS, new AbortController().signal);
    expect(out.markdown).toContain('Caf\u00e9');
  });

  it('a larger page that arrives while nothing else converts is converted inline, as the thread would', async () => {
    const c = converter({ idleInlineMaxMs: 60_000 });
    let out: HtmlPipelineResult | undefined;
    expect(await hopsOf(async () => {
      out = await c.convert(PAGE, OPTS, new AbortController().signal);
    })).toEqual(['worker:html-idle-inline']);
    expect({ ...out, timings: {} }).toEqual({ ...runHtmlPipeline(PAGE, OPTS), timings: {} });
  });

  it('a larger page goes to the thread while other jobs run in the process, even when nothing else converts', async () => {
    let running = 2;
    const c = converter({ idleInlineMaxMs: 60_000, jobsRunning: () => running });
    const busy = await hopsOf(() => c.convert(PAGE, OPTS, new AbortController().signal));
    expect(busy.filter((h) => h !== 'worker:html-pipeline')).toEqual(['worker:html-thread-handoff']);
    running = 1;
    expect(await hopsOf(() => c.convert(PAGE, OPTS, new AbortController().signal))).toEqual(['worker:html-idle-inline']);
  });

  it('a crawl page (throughput) goes to the thread even when nothing else converts, a small one too (more than one core)', async () => {
    const c = converter({ idleInlineMaxMs: 60_000 });
    const hops = await hopsOf(() => c.convert(PAGE, OPTS, new AbortController().signal, 'throughput'));
    expect(hops.filter((h) => h !== 'worker:html-pipeline')).toEqual(['worker:html-thread-handoff']);
    // With the size threshold of a real worker: the small page someone waits for is converted inline
    // (no conversion hop), the same page of a crawl in the thread; on one core both inline.
    const sized = new ThreadedHtmlConverter(THREAD, 1, { throughputInline: false });
    const single = new ThreadedHtmlConverter(THREAD, 1, { throughputInline: true });
    converters.push(sized, single);
    expect(PAGE.length).toBeLessThan(16 * 1024);
    expect(await hopsOf(() => sized.convert(PAGE, OPTS, new AbortController().signal))).toEqual([]);
    const crawled = await hopsOf(() => sized.convert(PAGE, OPTS, new AbortController().signal, 'throughput'));
    expect(crawled.filter((h) => h !== 'worker:html-pipeline')).toEqual(['worker:html-thread-handoff']);
    expect(await hopsOf(() => single.convert(PAGE, OPTS, new AbortController().signal, 'throughput'))).toEqual([]);
  });

  it('one that outruns the watchdog is stopped and converted in a thread; a page arriving meanwhile, or after (backoff), goes to a thread too', async () => {
    // 1 ms: far less than converting this page takes anywhere. A backoff no test outlives.
    const c = converter({ idleInlineMaxMs: 1, idleInlineBackoffMs: 3_600_000 });
    const big = PAGE.repeat(50);
    let first: HtmlPipelineResult | undefined;
    const hops = await hopsOf(async () => {
      const running = c.convert(big, OPTS, new AbortController().signal);
      // The first is in its thread now (the watchdog stopped it synchronously): this one is not alone.
      const second = c.convert(PAGE, OPTS, new AbortController().signal);
      [first] = await Promise.all([running, second]);
      // Alone now, but within the backoff.
      await c.convert(PAGE, OPTS, new AbortController().signal);
    });
    expect(hops.filter((h) => h !== 'worker:html-pipeline')).toEqual([
      'worker:html-idle-inline-stopped', 'worker:html-thread-handoff', 'worker:html-thread-handoff', 'worker:html-thread-handoff',
    ]);
    expect({ ...first, timings: {} }).toEqual({ ...runHtmlPipeline(big, OPTS), timings: {} });
  });
});
