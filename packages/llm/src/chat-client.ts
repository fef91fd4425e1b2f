import type { Llm, LlmFeature, LlmObserver, StructuredRequest, StructuredResult, TextRequest, TextResult } from './types.js';

/** Settings of the client (structurally the config package's `LlmEnvSettings`). */
export interface LlmClientSettings {
  baseUrl: string;
  apiKey?: string;
  model: string;
  models: Partial<Record<'json' | 'summary' | 'clean' | 'answer' | 'crawl', string>>;
  contextTokens: number;
  maxOutputTokens: number;
  timeoutMs: number;
  /** Calls in flight in this process; more wait their turn. */
  concurrency: number;
}

/** What the client logs through (pino's shape); never a prompt or completion with zero data retention. */
export interface LlmLogger {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * The one Chat Completions client (`POST {base}/chat/completions` through the `openai` library; never
 * the Responses API). TODO(helper llm-client): implement.
 */
export class ChatCompletionsLlm implements Llm {
  readonly contextTokens: number;
  readonly maxOutputTokens: number;
  constructor(
    readonly settings: LlmClientSettings,
    readonly opts: { observer?: LlmObserver; logger?: LlmLogger } = {},
  ) {
    this.contextTokens = settings.contextTokens;
    this.maxOutputTokens = settings.maxOutputTokens;
  }

  /** The model a feature uses. */
  modelFor(feature: LlmFeature): string {
    void feature;
    throw new Error('not implemented');
  }

  structured<T = unknown>(request: StructuredRequest): Promise<StructuredResult<T>> {
    void request;
    throw new Error('not implemented');
  }

  text(request: TextRequest): Promise<TextResult> {
    void request;
    throw new Error('not implemented');
  }
}
