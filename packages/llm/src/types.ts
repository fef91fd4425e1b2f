/**
 * The contract of the LLM layer. Everything above the client (the scrape transformers, extract, the
 * crawl prompt) depends on {@link Llm}, never on the client class, so tests can run the production
 * client against a local Chat Completions server and nothing is mocked.
 */

/** A feature label: metrics (`trawl_llm_*{feature}`), model choice and logs. Bounded. */
export type LlmFeature = 'json' | 'summary' | 'answer' | 'highlights' | 'clean' | 'change-tracking' | 'crawl' | 'extract';

/** A JSON Schema (draft 2020-12 or 07) as the caller sent it. */
export type JsonSchema = { [key: string]: unknown } | boolean;

/** Tokens spent; `calls` Chat Completions requests made. */
export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
  calls: number;
}

/** Options every call takes. */
export interface LlmCallOptions {
  feature: LlmFeature;
  /** The job's signal (deadline, cancellation); the call also has its own timeout (TRAWL_LLM_TIMEOUT_MS). */
  signal?: AbortSignal;
  /** Zero data retention: log no prompt and no completion. */
  zeroDataRetention?: boolean;
  /** Most answer tokens; default the settings' maxOutputTokens. */
  maxOutputTokens?: number;
}

/** A request for a structured (JSON) answer. */
export interface StructuredRequest extends LlmCallOptions {
  /** Instructions: the system message (the schema is added to it by the layer when needed). */
  instructions: string;
  /** The data (page content): sent in a delimited user message, treated as data, never as instructions. */
  content: string;
  /** The JSON Schema the answer must satisfy; omitted: any JSON object. */
  schema?: JsonSchema;
  /** Name of the schema in `response_format.json_schema.name` (`[a-zA-Z0-9_-]{1,64}`). Default `extraction`. */
  schemaName?: string;
}

/** A structured answer: `value` is valid against the schema, or null with `warning` saying why. */
export interface StructuredResult<T = unknown> {
  value: T | null;
  warning?: string;
  usage: LlmUsage;
}

/** A request for a free-text answer. */
export interface TextRequest extends LlmCallOptions {
  instructions: string;
  content: string;
}

export interface TextResult {
  text: string;
  usage: LlmUsage;
}

/**
 * The LLM as the features see it. `structured` never throws for a bad answer (null + warning); both
 * throw {@link LlmError} when the endpoint cannot be reached, answers an error, or times out.
 */
export interface Llm {
  /** Context window, tokens (TRAWL_LLM_CONTEXT_TOKENS): chunk sizes derive from it. */
  readonly contextTokens: number;
  /** Answer budget, tokens (TRAWL_LLM_MAX_OUTPUT_TOKENS). */
  readonly maxOutputTokens: number;
  structured<T = unknown>(request: StructuredRequest): Promise<StructuredResult<T>>;
  text(request: TextRequest): Promise<TextResult>;
}

/** Why a call failed: `unavailable` (connection, 5xx, 404 model), `timeout`, `refused` (4xx other than the format fallbacks), `aborted` (the caller's signal). */
export type LlmErrorKind = 'unavailable' | 'timeout' | 'refused' | 'aborted';

/** A failed call to the LLM endpoint. The message names the endpoint's answer, never the prompt. */
export class LlmError extends Error {
  readonly kind: LlmErrorKind;
  readonly status?: number;
  constructor(kind: LlmErrorKind, message: string, opts: { status?: number; cause?: unknown } = {}) {
    super(message, { cause: opts.cause });
    this.name = 'LlmError';
    this.kind = kind;
    if (opts.status !== undefined) this.status = opts.status;
  }
}

/** One finished call, for metrics and token accounting (prom-client lives in the worker). */
export interface LlmCallEvent {
  feature: LlmFeature;
  model: string;
  /** `ok`; `invalid` (answer not valid JSON or not valid against the schema after the repair); an {@link LlmErrorKind}. */
  outcome: 'ok' | 'invalid' | LlmErrorKind;
  seconds: number;
  promptTokens: number;
  completionTokens: number;
}

/** Receives every call's event. */
export type LlmObserver = (event: LlmCallEvent) => void;

/** Adds usages. */
export function addUsage(a: LlmUsage, b: LlmUsage): LlmUsage {
  return { promptTokens: a.promptTokens + b.promptTokens, completionTokens: a.completionTokens + b.completionTokens, calls: a.calls + b.calls };
}

export const NO_USAGE: LlmUsage = Object.freeze({ promptTokens: 0, completionTokens: 0, calls: 0 });
