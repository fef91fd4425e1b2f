import type { PageSource } from '../../convert/page-source.js';
import type { HtmlPipelineResult } from '@trawl/html';
import type { ScrapeContext } from '../pipeline/context.js';
import type { Handoff } from '../pipeline/handoff.js';

/** What a fetch stage ended with: a page to convert, or the job handed to another queue. */
export type StageOutcome = { kind: 'page'; source: PageSource } | { kind: 'handoff'; handoff: Handoff };

/**
 * The engine of one queue: `http-stage.ts` (queue `scrape`), `browser-stage.ts` (`browser`),
 * `documents-stage.ts` (`documents`). The pipeline picks the stage by the queue the job is on.
 */
export interface FetchStage {
  fetch(ctx: ScrapeContext): Promise<StageOutcome>;
  /** After conversion: a page that turns out to need another engine (a JavaScript shell). */
  review?(ctx: ScrapeContext, source: PageSource, converted: Partial<HtmlPipelineResult>): Handoff | undefined;
}
