import { Script, createContext, type Context } from 'node:vm';
import { availableParallelism } from 'node:os';
import { runHtmlPipeline, type HtmlPipelineOptions, type HtmlPipelineResult } from '@trawl/html';
import { recordHop, hopTimingOn } from '@trawl/queue';
import { ThreadPool } from './thread-pool.js';

/**
 * What a conversion is for: `latency` (someone waits for this page: a sync scrape, a map) or
 * `throughput` (one page of many: a crawl or batch page, whose caller waits for all of them).
 */
export type ConversionPriority = 'latency' | 'throughput';

/**
 * A page's HTML not decoded yet (a fetched page's `undecodedUtf8`): its bytes, valid UTF-8 without a
 * BOM, and its text, decoded on this thread when called (the page's own `text`, decoded once for
 * whoever reads it). A conversion thread gets a copy of the bytes and decodes them there: the page is
 * then neither decoded on the event loop nor copied to the thread as text.
 */
export interface Utf8Html {
  readonly utf8: Uint8Array;
  text(): string;
}

/** The HTML a converter takes: text, or bytes not decoded yet. */
export type HtmlInput = string | Utf8Html;

function textOf(html: HtmlInput): string {
  return typeof html === 'string' ? html : html.text();
}

/** Runs the HTML pipeline for a job; the threaded form keeps CPU work off the event loop. */
export interface HtmlConverter {
  /** `priority` defaults to `latency`. */
  convert(html: HtmlInput, opts: HtmlPipelineOptions, signal: AbortSignal, priority?: ConversionPriority): Promise<HtmlPipelineResult>;
  close(): Promise<void>;
}

/** Runs the pipeline on the calling thread (tests, and a one-off CLI scrape). */
export class InlineHtmlConverter implements HtmlConverter {
  async convert(html: HtmlInput, opts: HtmlPipelineOptions, signal: AbortSignal): Promise<HtmlPipelineResult> {
    signal.throwIfAborted();
    return runHtmlPipeline(textOf(html), opts);
  }
  async close(): Promise<void> {}
}

/** The request a conversion thread (`html-thread.ts`) receives: the page as text, or as UTF-8 bytes (transferred). */
export type HtmlThreadRequest = ({ rawHtml: string } | { utf8: Uint8Array }) & {
  opts: HtmlPipelineOptions;
  /** Report the pipeline's own time (hop timing is on): the rest of the round trip is the hand-off. */
  timed?: boolean;
};

/** What a conversion thread answers. */
export interface HtmlThreadReply {
  result: HtmlPipelineResult;
  /** The pipeline's time in the thread, ms (timed requests only). */
  ms?: number;
}

/**
 * Pages up to this many characters (bytes, for a page not decoded yet) are converted on the calling
 * thread: their conversion takes less than handing them to a thread and back (structured clone both
 * ways, a thread wake-up), and cannot run long enough to matter to the event loop.
 */
export const INLINE_CONVERSION_MAX_CHARS = 16 * 1024;

/**
 * How long a larger page may be converted on the calling thread when no other conversion is under
 * way, ms (see {@link ThreadedHtmlConverter}): past it, the conversion is stopped and the page goes to
 * a thread. Bounds how long one page can hold the event loop (once per {@link IDLE_INLINE_BACKOFF_MS}).
 * Far above an ordinary page's 3-15 ms: the watchdog counts wall time, which a busy machine stretches
 * (at 50 ms, 2-3% of ordinary pages were stopped in the benchmark at load 10 on 2 cores).
 */
export const IDLE_INLINE_MAX_MS = 200;

/**
 * Largest page (characters) converted inline when no other conversion is under way. Such a page
 * converts in about 3-15 ms (the readability corpus: 140-380 K characters); a larger one is sent to
 * a thread rather than risk the watchdog stopping it (a busy machine stretches both the conversion
 * and the watchdog's own wake-up: one stopped at 50 ms was measured at 93 ms, all of it wasted).
 */
export const IDLE_INLINE_MAX_CHARS = 512 * 1024;

/**
 * After the watchdog stopped a conversion, larger pages go to the threads for this long, ms. The
 * watchdog counts wall time: on a machine short of CPU it can stop ordinary pages too, each a wasted
 * conversion; the threads' hand-off is cheaper then. A pathological page costs the event loop one
 * watchdog period per backoff. Short: a stop while the code is still cold (the first conversions on
 * this thread are about 10x slower) must not keep the path off for long.
 */
export const IDLE_INLINE_BACKOFF_MS = 5_000;

/**
 * A fixed pool of threads running the HTML pipeline. A conversion that outlives its job's deadline
 * gets its thread terminated and replaced, so a pathological page cannot wedge a worker. Small pages
 * ({@link INLINE_CONVERSION_MAX_CHARS}) someone waits for are converted inline; a crawl's pages all go
 * to the threads (on a machine with more than one core). A larger page that arrives while no
 * other conversion is under way (a lone sync scrape; not a crawl's page) is converted inline too, up to
 * {@link IDLE_INLINE_MAX_CHARS}, under V8's watchdog
 * (`vm` timeout, {@link IDLE_INLINE_MAX_MS}): the hand-off to a thread and back (about 1 ms, more
 * than the watchdog's 0.1) would be the larger part of its wait. One that runs past the watchdog is
 * stopped there and goes to a thread, so the deadline still cuts off a pathological page; under load
 * (another conversion in flight) pages go to the threads, leaving the event loop to the rest.
 */
export class ThreadedHtmlConverter implements HtmlConverter {
  private readonly pool: ThreadPool<HtmlThreadRequest, HtmlThreadReply>;
  private readonly inlineMaxChars: number;
  /** The same for `throughput` conversions: 0 (every page to a thread) when the machine has more than one core. */
  private readonly throughputInlineMaxChars: number;
  private readonly idleInlineMaxMs: number;
  private readonly idleInlineBackoffMs: number;
  private readonly jobsRunning: () => number;
  /** Conversions of larger pages under way (inline or in a thread). */
  private active = 0;
  /** `performance.now()` before which larger pages skip the inline path (see {@link IDLE_INLINE_BACKOFF_MS}). */
  private idleInlineAfter = 0;
  /**
   * Only a script run can have a `vm` timeout: this one calls the conversion its context holds (set
   * just before it runs). The function is ours and runs in our realm; the context only carries it.
   */
  private readonly watched = new Script('run()', { filename: 'trawl-idle-conversion' });
  private readonly watchedContext: Context = createContext({ run: undefined });

  /**
   * `inlineMaxChars`: pages up to this length skip the threads; default {@link INLINE_CONVERSION_MAX_CHARS}, 0: never.
   * `idleInlineMaxMs`: watchdog of a larger page converted inline while nothing else converts and no
   * other scrape runs; default {@link IDLE_INLINE_MAX_MS}, 0: never (every larger page goes to a thread).
   * `jobsRunning`: scrape jobs this process runs now (the converting one included); default none counted.
   * `idleInlineBackoffMs`: how long that path is off after the watchdog stopped a conversion; default {@link IDLE_INLINE_BACKOFF_MS}.
   * `throughputInline`: `throughput` conversions (crawl and batch pages) of small pages run inline too;
   * default only on a single core. Else every such page goes to a thread, small ones included: a crawl
   * keeps its event loop busy with its other pages, and a thread on another core converts meanwhile
   * (the generated-site crawl: 884-918 pages/s against 740-793 inline in steady rounds, `crawl.bench.mjs
   * --mode cpu`, same-window A/B on 2 cores).
   */
  constructor(
    threadScript: URL, size: number,
    opts: { inlineMaxChars?: number; idleInlineMaxMs?: number; idleInlineBackoffMs?: number; throughputInline?: boolean; jobsRunning?: () => number } = {},
  ) {
    this.pool = new ThreadPool(threadScript, size, { label: 'HTML conversion' });
    this.inlineMaxChars = opts.inlineMaxChars ?? INLINE_CONVERSION_MAX_CHARS;
    this.throughputInlineMaxChars = (opts.throughputInline ?? availableParallelism() <= 1) ? this.inlineMaxChars : 0;
    this.idleInlineMaxMs = opts.idleInlineMaxMs ?? IDLE_INLINE_MAX_MS;
    this.idleInlineBackoffMs = opts.idleInlineBackoffMs ?? IDLE_INLINE_BACKOFF_MS;
    this.jobsRunning = opts.jobsRunning ?? (() => 0);
  }

  async convert(html: HtmlInput, opts: HtmlPipelineOptions, signal: AbortSignal, priority: ConversionPriority = 'latency'): Promise<HtmlPipelineResult> {
    // Bytes count for characters: never fewer, and as many for the markup that makes most of a page.
    const size = typeof html === 'string' ? html.length : html.utf8.length;
    if (size <= (priority === 'latency' ? this.inlineMaxChars : this.throughputInlineMaxChars)) {
      signal.throwIfAborted();
      return runHtmlPipeline(textOf(html), opts);
    }
    this.active++;
    try {
      // Only a page someone waits for: a crawl's pages arrive one after another, so one is often the
      // only conversion under way while the event loop is busy with the crawl's other pages (inline,
      // the Jena crawl ran at 125-155 pages/s against 157-185 on the thread: `crawl.bench.mjs --mode
      // cpu --site jena`, same-window A/B). And only while no other scrape runs: with others in flight the
      // event loop is their bottleneck, and the thread converts on the other core (sync scrapes, 8 in
      // flight: main thread -0.9 ms a request, throughput x1.23, same-window A/B of a scratch driver; 1 in flight unchanged).
      if (priority === 'latency' && this.active === 1 && this.jobsRunning() <= 1 && this.idleInlineMaxMs > 0 && size <= IDLE_INLINE_MAX_CHARS && performance.now() >= this.idleInlineAfter) {
        signal.throwIfAborted();
        const result = this.convertWatched(textOf(html), opts);
        if (result) return result;
      }
      return await this.convertInThread(html, opts, signal);
    } finally {
      this.active--;
    }
  }

  /** The pipeline on this thread under the watchdog: undefined when it was stopped there. */
  private convertWatched(rawHtml: string, opts: HtmlPipelineOptions): HtmlPipelineResult | undefined {
    const t0 = hopTimingOn() ? performance.now() : 0;
    const context = this.watchedContext as { run: (() => HtmlPipelineResult) | undefined };
    context.run = () => runHtmlPipeline(rawHtml, opts);
    try {
      const result = this.watched.runInContext(this.watchedContext, { timeout: this.idleInlineMaxMs }) as HtmlPipelineResult;
      if (t0 > 0) recordHop('worker:html-idle-inline', performance.now() - t0);
      return result;
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw err;
      if (t0 > 0) recordHop('worker:html-idle-inline-stopped', performance.now() - t0);
      this.idleInlineAfter = performance.now() + this.idleInlineBackoffMs;
      return undefined;
    } finally {
      context.run = undefined;
    }
  }

  /**
   * Bytes not decoded yet go as a copy the thread owns (transferred, not cloned): a copy, because the
   * page keeps its own for whoever reads its text here later (a few microseconds for a large page).
   */
  private async convertInThread(html: HtmlInput, opts: HtmlPipelineOptions, signal: AbortSignal): Promise<HtmlPipelineResult> {
    let page: { rawHtml: string } | { utf8: Uint8Array };
    const transfer: ArrayBuffer[] = [];
    if (typeof html === 'string') page = { rawHtml: html };
    else {
      // Not zero-filled, and not from Buffer's shared pool: an ArrayBuffer of its own, to transfer.
      const utf8 = Buffer.allocUnsafeSlow(html.utf8.length);
      utf8.set(html.utf8);
      page = { utf8 };
      transfer.push(utf8.buffer);
    }
    if (!hopTimingOn()) return (await this.pool.run({ ...page, opts }, signal, transfer)).result;
    const t0 = performance.now();
    const reply = await this.pool.run({ ...page, opts, timed: true }, signal, transfer);
    recordHop('worker:html-pipeline', reply.ms ?? 0);
    recordHop('worker:html-thread-handoff', performance.now() - t0 - (reply.ms ?? 0));
    return reply.result;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
