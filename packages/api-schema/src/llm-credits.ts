import { requiredCapabilities, type Capability, type CapabilityInput } from './required-capabilities.js';

/**
 * Credits one LLM feature adds to a page's cost: what the hosted service charges for its JSON format
 * (4 a page on top of the scrape).
 */
export const LLM_FORMAT_CREDITS = 4;

/**
 * The capabilities served by an LLM: the formats and options that answer 400 LLM_NOT_CONFIGURED when
 * none is configured. `highlights` is not among them: without an LLM it ranks lexically (free).
 */
export const LLM_CAPABILITIES: ReadonlySet<Capability> = new Set<Capability>([
  'json', 'summary', 'question', 'onlyCleanContent', 'changeTracking:json',
]);

/** Options of {@link llmFormatCredits}. */
export interface LlmCreditOptions {
  /** An LLM is configured: `highlights` then uses it and costs as much as the other LLM formats; else it is lexical and free. */
  llmConfigured: boolean;
  /** Count only these capabilities (a transformer counting its own formats); default every LLM one. */
  only?: readonly Capability[];
}

/**
 * Credits the LLM features of one page add to its scrape cost: {@link LLM_FORMAT_CREDITS} for each
 * `json`, `summary`, `question` format, `changeTracking` in mode `json`, `onlyCleanContent`, and
 * `highlights` when an LLM picks them. The one source of this rule: the gateway checks the team can pay
 * it before admitting a page; each worker transformer declares its share with `only` (the shares add
 * up to this total), and the scrape pipeline bills it through `withFormatCredits`.
 */
export function llmFormatCredits(options: CapabilityInput, opts: LlmCreditOptions): number {
  let credits = 0;
  for (const { capability } of requiredCapabilities(options)) {
    if (opts.only !== undefined && !opts.only.includes(capability)) continue;
    const llm = LLM_CAPABILITIES.has(capability) || (capability === 'highlights' && opts.llmConfigured);
    if (llm) credits += LLM_FORMAT_CREDITS;
  }
  return credits;
}
