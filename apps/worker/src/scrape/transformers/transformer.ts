import type { Document, FormatType, ScrapeRequest } from '@trawl/api-schema';
import type { HtmlPipelineFormats, HtmlPipelineResult } from '@trawl/html';
import type { LlmUsage } from '@trawl/llm';
import type { Logger } from '@trawl/observability';
import type { ScrapeJob } from '@trawl/queue';
import type { PageSource } from '../../convert/page-source.js';

/** What a transformer needs besides the converted page: nothing, the browser's page, or an LLM. */
export type TransformerNeed = 'nothing' | 'browser-page' | 'llm';

/** What a transformer reads: the request, the job, the page and its conversion. */
export interface TransformInput {
  job: ScrapeJob;
  request: ScrapeRequest;
  source: PageSource;
  /** The HTML pipeline's output for this page (every `converts` of the applying transformers); onlyCleanContent replaces its markdown. */
  converted: Partial<HtmlPipelineResult>;
  log: Logger;
  /** The job's signal (deadline, cancellation, shutdown); throws when the job may not go on. */
  signal(): AbortSignal;
  /** Adds LLM tokens spent for this page (recorded per team once the transformers ran). */
  usage(usage: LlmUsage): void;
}

/**
 * A document transformer: one file under `scrape/transformers/`, listed in `index.ts` in the order
 * the pipeline runs them. It serves the `formats` it declares (it runs when the request asks for one
 * of them, or when `applies` says so), may ask the HTML pipeline for outputs (`converts`), declares
 * what it needs and what it costs (added to the job's credits, billed once by the pipeline's finish
 * through the credit module), and writes its member(s) of the Document.
 */
export interface DocumentTransformer {
  /** A `trawl_scrape_step_seconds{step="transform:<name>"}` label: fixed, lowercase. */
  readonly name: string;
  readonly formats: readonly FormatType[];
  readonly needs: TransformerNeed;
  /** HTML pipeline outputs this transformer reads from `converted`. */
  readonly converts?: HtmlPipelineFormats;
  /** Whether the request wants this transformer; default: it asks for one of `formats`. */
  applies?(request: ScrapeRequest): boolean;
  /** Credits it adds to the scrape's cost (0 for the formats the page cost covers). */
  credits(request: ScrapeRequest): number;
  run(input: TransformInput, document: Document): Promise<void> | void;
}

/** Whether a request wants a transformer. */
export function transformerApplies(t: DocumentTransformer, request: ScrapeRequest): boolean {
  return t.applies ? t.applies(request) : request.formats.some((f) => t.formats.includes(f.type));
}
