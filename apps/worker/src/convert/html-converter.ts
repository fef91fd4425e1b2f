import { runHtmlPipeline, type HtmlPipelineOptions, type HtmlPipelineResult } from '@trawl/html';
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
}

/**
 * A fixed pool of threads running the HTML pipeline. A conversion that outlives its job's deadline
 * gets its thread terminated and replaced, so a pathological page cannot wedge a worker.
 */
export class ThreadedHtmlConverter implements HtmlConverter {
  private readonly pool: ThreadPool<HtmlThreadRequest, HtmlPipelineResult>;

  constructor(threadScript: URL, size: number) {
    this.pool = new ThreadPool(threadScript, size, { label: 'HTML conversion' });
  }

  convert(rawHtml: string, opts: HtmlPipelineOptions, signal: AbortSignal): Promise<HtmlPipelineResult> {
    return this.pool.run({ rawHtml, opts }, signal);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
