import { TrawlError } from '@trawl/api-schema';
import { LLM_SETTING } from '@trawl/config';

/** 400 LLM_NOT_CONFIGURED naming the option that needs an LLM and the setting that turns one on. */
export function llmNotConfiguredError(option: string): TrawlError {
  return new TrawlError('LLM_NOT_CONFIGURED', `The option ${option} needs an LLM, and none is configured on this server: set ${LLM_SETTING} (and TRAWL_LLM_MODEL), or OPENAI_API_KEY`, {
    details: { option, setting: LLM_SETTING },
  });
}

/**
 * Throws 400 LLM_NOT_CONFIGURED naming the option that needs an LLM and the setting that turns one
 * on, when none is configured: at validation, before anything is queued or charged.
 */
export function assertLlmConfigured(llmConfigured: boolean, option: string): void {
  if (!llmConfigured) throw llmNotConfiguredError(option);
}
