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
 * A fixed pool of threads running the HTML pipeline. A conversion that outlives its job's deadline
 * gets its thread terminated and replaced, so a pathological page cannot wedge a worker.
 */
export class ThreadedHtmlConverter implements HtmlConverter {
  private readonly pool: ThreadPool<HtmlThreadRequest, HtmlThreadReply>;

  constructor(threadScript: URL, size: number) {
    this.pool = new ThreadPool(threadScript, size, { label: 'HTML conversion' });
  }

  async convert(rawHtml: string, opts: HtmlPipelineOptions, signal: AbortSignal): Promise<HtmlPipelineResult> {
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
