import { z } from 'zod';
import { envBaseUrl, envInt, envOptionalString } from './env-fields.js';

/**
 * The LLM settings, read by the API (is an LLM configured? else 400 LLM_NOT_CONFIGURED before anything
 * is queued) and by the workers (who call it). One OpenAI-compatible Chat Completions endpoint serves
 * every feature; a feature may name its own model. The names users of the other self-hosted system
 * already have in their `.env` are read as aliases: `OPENAI_BASE_URL`, `OPENAI_API_KEY`, `MODEL_NAME`,
 * `OLLAMA_BASE_URL` (its OpenAI-compatible path `/v1` is appended).
 */
export const llmEnv = {
  /** Base URL of the Chat Completions API, e.g. `http://ollama:11434/v1`; `{base}/chat/completions` is called. */
  TRAWL_LLM_BASE_URL: envBaseUrl(),
  /** Bearer key sent to it. With only a key, the base URL is OpenAI's. */
  TRAWL_LLM_API_KEY: envOptionalString(),
  /** Model of every feature without its own. Default `gpt-4o-mini` on OpenAI; required elsewhere. */
  TRAWL_LLM_MODEL: envOptionalString(),
  /** Model of `json` extraction, `/v2/extract` and change tracking `json`. */
  TRAWL_LLM_MODEL_JSON: envOptionalString(),
  /** Model of the `summary` format. */
  TRAWL_LLM_MODEL_SUMMARY: envOptionalString(),
  /** Model of `onlyCleanContent`. */
  TRAWL_LLM_MODEL_CLEAN: envOptionalString(),
  /** Model of `question` and `highlights`. */
  TRAWL_LLM_MODEL_ANSWER: envOptionalString(),
  /** Model of the crawl `prompt` and `/v2/crawl/params-preview`. */
  TRAWL_LLM_MODEL_CRAWL: envOptionalString(),
  /** Context window of the model, tokens: drives chunking. Default 8192 (a small local model). */
  TRAWL_LLM_CONTEXT_TOKENS: envInt(8192, { min: 1024 }),
  /** Most tokens one answer may have. Default 1024. */
  TRAWL_LLM_MAX_OUTPUT_TOKENS: envInt(1024, { min: 64 }),
  /** Time one Chat Completions call may take, ms. Default 60000. */
  TRAWL_LLM_TIMEOUT_MS: envInt(60_000, { min: 100 }),
  /** Calls in flight per worker process. Default 4. */
  TRAWL_LLM_CONCURRENCY: envInt(4, { min: 1, max: 256 }),
  OPENAI_BASE_URL: envBaseUrl(),
  OPENAI_API_KEY: envOptionalString(),
  MODEL_NAME: envOptionalString(),
  OLLAMA_BASE_URL: envBaseUrl(),
};

type LlmEnv = z.output<ReturnType<typeof z.object<typeof llmEnv>>>;

/** The LLM features that can name their own model. */
export const LLM_MODEL_FEATURES = ['json', 'summary', 'clean', 'answer', 'crawl'] as const;
export type LlmModelFeature = (typeof LLM_MODEL_FEATURES)[number];

/** Resolved LLM settings; `undefined` from {@link llmSettingsOf} when none is configured. */
export interface LlmEnvSettings {
  /** Without a trailing slash; `{baseUrl}/chat/completions` is called. */
  baseUrl: string;
  apiKey?: string;
  /** Default model. */
  model: string;
  /** Per-feature models (only those set). */
  models: Partial<Record<LlmModelFeature, string>>;
  contextTokens: number;
  maxOutputTokens: number;
  timeoutMs: number;
  concurrency: number;
}

/** The setting an operator sets to turn the LLM features on (named in LLM_NOT_CONFIGURED). */
export const LLM_SETTING = 'TRAWL_LLM_BASE_URL';

const OPENAI_BASE = 'https://api.openai.com/v1';

/**
 * Resolves the LLM settings from a loaded config: TRAWL_* names first, then the aliases. Nothing set
 * (no base URL and no key): `undefined`, the LLM features answer 400 LLM_NOT_CONFIGURED.
 * @throws Error when an endpoint other than OpenAI's is set without a model (servers such as vLLM and
 * Ollama answer 404 for a model they do not serve; better said at start than at the first call).
 */
export function llmSettingsOf(env: LlmEnv): LlmEnvSettings | undefined {
  const ollama = env.OLLAMA_BASE_URL === undefined ? undefined : env.OLLAMA_BASE_URL.replace(/\/v1$/, '') + '/v1';
  const apiKey = env.TRAWL_LLM_API_KEY ?? env.OPENAI_API_KEY;
  const baseUrl = env.TRAWL_LLM_BASE_URL ?? env.OPENAI_BASE_URL ?? ollama ?? (apiKey !== undefined ? OPENAI_BASE : undefined);
  if (baseUrl === undefined) return undefined;
  const model = env.TRAWL_LLM_MODEL ?? env.MODEL_NAME ?? (baseUrl === OPENAI_BASE ? 'gpt-4o-mini' : undefined);
  if (model === undefined) {
    throw new Error(`TRAWL_LLM_MODEL: the LLM at ${baseUrl} needs a model name (e.g. llama3.1:8b for Ollama)`);
  }
  const models: Partial<Record<LlmModelFeature, string>> = {};
  const perFeature: Record<LlmModelFeature, string | undefined> = {
    json: env.TRAWL_LLM_MODEL_JSON, summary: env.TRAWL_LLM_MODEL_SUMMARY, clean: env.TRAWL_LLM_MODEL_CLEAN,
    answer: env.TRAWL_LLM_MODEL_ANSWER, crawl: env.TRAWL_LLM_MODEL_CRAWL,
  };
  for (const f of LLM_MODEL_FEATURES) if (perFeature[f] !== undefined) models[f] = perFeature[f];
  return {
    baseUrl,
    ...(apiKey !== undefined ? { apiKey } : {}),
    model,
    models,
    contextTokens: env.TRAWL_LLM_CONTEXT_TOKENS,
    maxOutputTokens: env.TRAWL_LLM_MAX_OUTPUT_TOKENS,
    timeoutMs: env.TRAWL_LLM_TIMEOUT_MS,
    concurrency: env.TRAWL_LLM_CONCURRENCY,
  };
}
