import { llmFormatCredits, type Capability, type Document, type ScrapeRequest } from '@trawl/api-schema';
import { LlmError, type Llm, type LlmUsage } from '@trawl/llm';
import type { TransformInput } from './transformer.js';

/**
 * A transformer's share of the LLM credits of a page (4 a format; lexical highlights free): the one
 * rule in api-schema's `llmFormatCredits`, which the gateway's credit check uses too.
 */
export function llmCredits(request: ScrapeRequest, llm: Llm | undefined, capability: Capability): number {
  return llmFormatCredits(request, { llmConfigured: llm !== undefined, only: [capability] });
}

/** Formats that read the page's markdown (onlyCleanContent is worth running only for them). */
export const MARKDOWN_READERS = ['markdown', 'json', 'summary', 'question', 'highlights', 'changeTracking'] as const;

/** Adds a sentence to `document.warning` (after an existing one). */
export function appendWarning(document: Document, text: string): void {
  document.warning = document.warning ? `${document.warning} ${text}` : text;
}

/** The request's format object of one type. */
export function formatOf<T extends ScrapeRequest['formats'][number]['type']>(request: ScrapeRequest, type: T): Extract<ScrapeRequest['formats'][number], { type: T }> | undefined {
  return request.formats.find((f): f is Extract<ScrapeRequest['formats'][number], { type: T }> => f.type === type);
}

/** The call options every LLM call of a job carries. */
export interface LlmJobCall {
  signal: AbortSignal;
  zeroDataRetention: boolean;
}

/**
 * Runs an LLM format's work. The LLM failing (down, timeout, refused: {@link LlmError}) does not fail
 * the scrape: the field is left to the caller as null (undefined returned) and `document.warning` says
 * why. The job's own end (deadline, cancellation, shutdown) still ends the job: the job's error is
 * thrown. Anything else is a defect and propagates.
 */
export async function runLlmFormat<T>(
  input: TransformInput, document: Document, what: string, work: (call: LlmJobCall) => Promise<T & { usage: LlmUsage }>,
): Promise<T | undefined> {
  const signal = input.signal();
  try {
    const result = await work({ signal, zeroDataRetention: input.job.zeroDataRetention });
    input.usage(result.usage);
    return result;
  } catch (err) {
    if (!(err instanceof LlmError) || signal.aborted || err.kind === 'aborted') {
      // The job's deadline or cancellation: its own error (SCRAPE_TIMEOUT, JOB_CANCELLED) wins.
      if (signal.aborted) input.signal();
      throw err;
    }
    input.log.warn({ kind: err.kind, status: err.status, format: what }, 'llm format failed');
    appendWarning(document, `${what} not produced: the LLM failed (${err.kind}${err.status !== undefined ? ` ${err.status}` : ''}).`);
    return undefined;
  }
}

/** The warning of a format asked of a worker with no LLM configured (the API refuses such requests when it knows). */
export function noLlmWarning(document: Document, what: string): void {
  appendWarning(document, `${what} not produced: no LLM is configured on this worker.`);
}
