import { runHtmlPipeline, type HtmlPipelineOptions, type HtmlPipelineResult } from '@trawl/html';
import { recordHop, hopTimingOn } from '@trawl/queue';
import { ThreadPool } from './thread-pool.js';

/** Runs the HTML pipeline for a job; the threaded form keeps CPU work off the event loop. */
export interface HtmlConverter {
  convert(rawHtml: string, opts: HtmlPipelineOptions, signal: AbortSignal): Promise<HtmlPipelineResult>;
  close(): Promise<void>;
}

/** Runs the pipeline on the calling thread (tests, and a one-off CLI scrape). */
export class InlineHtmlConverter implements HtmlConverter {
  async convert(rawHtml: string, opts: HtmlPipelineOptions, signal: AbortSignal): Promise<HtmlPipelineResult> {
    signal.throwIfAborted();
    return runHtmlPipeline(rawHtml, opts);
  }
  async close(): Promise<void> {}
}

/** The request a conversion thread (`html-thread.ts`) receives. */
export interface HtmlThreadRequest {
  rawHtml: string;
  opts: HtmlPipelineOptions;
  /** Report the pipeline's own time (hop timing is on): the rest of the round trip is the hand-off. */
  timed?: boolean;
}

/** What a conversion thread answers. */
export interface HtmlThreadReply {
  result: HtmlPipelineResult;
  /** The pipeline's time in the thread, ms (timed requests only). */
  ms?: number;
}

/**
 * Pages up to this many characters are converted on the calling thread: their conversion takes less
 * than handing them to a thread and back (structured clone both ways, a thread wake-up), and cannot
 * run long enough to matter to the event loop.
 */
export const INLINE_CONVERSION_MAX_CHARS = 16 * 1024;

/**
 * A fixed pool of threads running the HTML pipeline. A conversion that outlives its job's deadline
 * gets its thread terminated and replaced, so a pathological page cannot wedge a worker. Small pages
 * ({@link INLINE_CONVERSION_MAX_CHARS}) are converted inline while the event loop has room.
 */
export class ThreadedHtmlConverter implements HtmlConverter {
  private readonly pool: ThreadPool<HtmlThreadRequest, HtmlThreadReply>;
  private readonly inlineMaxChars: number;
  private readonly loopBusy: (() => boolean) | undefined;

  /**
   * `inlineMaxChars`: pages up to this length skip the threads; default {@link INLINE_CONVERSION_MAX_CHARS}, 0: never.
   * `loopBusy`: while it says so (an `EventLoopLoad`), small pages go to the threads too, so other cores take them.
   */
  constructor(threadScript: URL, size: number, opts: { inlineMaxChars?: number; loopBusy?: () => boolean } = {}) {
    this.pool = new ThreadPool(threadScript, size, { label: 'HTML conversion' });
    this.inlineMaxChars = opts.inlineMaxChars ?? INLINE_CONVERSION_MAX_CHARS;
    this.loopBusy = opts.loopBusy;
  }

  async convert(rawHtml: string, opts: HtmlPipelineOptions, signal: AbortSignal): Promise<HtmlPipelineResult> {
    if (rawHtml.length <= this.inlineMaxChars && !(this.loopBusy?.() ?? false)) {
      signal.throwIfAborted();
      return runHtmlPipeline(rawHtml, opts);
    }
    if (!hopTimingOn()) return (await this.pool.run({ rawHtml, opts }, signal)).result;
    const t0 = performance.now();
    const reply = await this.pool.run({ rawHtml, opts, timed: true }, signal);
    recordHop('worker:html-pipeline', reply.ms ?? 0);
    recordHop('worker:html-thread-handoff', performance.now() - t0 - (reply.ms ?? 0));
    return reply.result;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
