import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { loadConfig } from './load-config.js';
import { llmEnv, llmSettingsOf } from './llm-env.js';

const settingsOf = (env: Record<string, string>) => llmSettingsOf(loadConfig(z.object(llmEnv), env));

describe('llmSettingsOf', () => {
  it('is undefined when no base URL and no key is set (the LLM features answer LLM_NOT_CONFIGURED)', () => {
    expect(settingsOf({})).toBeUndefined();
    expect(settingsOf({ TRAWL_LLM_MODEL: 'm', TRAWL_LLM_BASE_URL: '' })).toBeUndefined();
  });

  it('reads the TRAWL_ names with their defaults and per-feature models', () => {
    expect(settingsOf({ TRAWL_LLM_BASE_URL: 'http://vllm:8000/v1/', TRAWL_LLM_MODEL: 'qwen', TRAWL_LLM_MODEL_JSON: 'big' })).toEqual({
      baseUrl: 'http://vllm:8000/v1', model: 'qwen', models: { json: 'big' },
      contextTokens: 8192, maxOutputTokens: 1024, timeoutMs: 60_000, concurrency: 4,
    });
  });

  it('an OpenAI key alone means OpenAI and gpt-4o-mini', () => {
    expect(settingsOf({ OPENAI_API_KEY: 'sk-x' })).toMatchObject({ baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-x', model: 'gpt-4o-mini' });
  });

  it('accepts the other system\'s names: OPENAI_BASE_URL, MODEL_NAME, OLLAMA_BASE_URL (with /v1 appended once)', () => {
    expect(settingsOf({ OPENAI_BASE_URL: 'http://litellm:4000/v1', MODEL_NAME: 'llama' })).toMatchObject({ baseUrl: 'http://litellm:4000/v1', model: 'llama' });
    expect(settingsOf({ OLLAMA_BASE_URL: 'http://ollama:11434', MODEL_NAME: 'llama3.1:8b' })).toMatchObject({ baseUrl: 'http://ollama:11434/v1' });
    expect(settingsOf({ OLLAMA_BASE_URL: 'http://ollama:11434/v1', MODEL_NAME: 'llama3.1:8b' })).toMatchObject({ baseUrl: 'http://ollama:11434/v1' });
  });

  it('the TRAWL_ names win over the aliases', () => {
    expect(settingsOf({ TRAWL_LLM_BASE_URL: 'http://a/v1', OPENAI_BASE_URL: 'http://b/v1', TRAWL_LLM_MODEL: 'x', MODEL_NAME: 'y' })).toMatchObject({ baseUrl: 'http://a/v1', model: 'x' });
  });

  it('a server other than OpenAI without a model is a configuration error naming TRAWL_LLM_MODEL', () => {
    expect(() => settingsOf({ TRAWL_LLM_BASE_URL: 'http://ollama:11434/v1' })).toThrow(/TRAWL_LLM_MODEL/);
  });
});
