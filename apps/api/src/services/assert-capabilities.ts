import {
  LLM_CAPABILITIES, TrawlError, requiredCapabilities,
  type Capability, type CapabilityInput, type CapabilityRequirement,
} from '@trawl/api-schema';
import { llmNotConfiguredError } from './assert-llm.js';

/**
 * The error for an option whose capability this deployment lacks: 400 LLM_NOT_CONFIGURED (naming the
 * setting) when what is missing is an LLM, else 400 UNSUPPORTED_OPTION.
 * @param option full path of the option in the request, e.g. `scrapeOptions.formats[1]`.
 */
export function missingCapabilityError(capability: Capability, option: string): TrawlError {
  if (LLM_CAPABILITIES.has(capability)) return llmNotConfiguredError(option);
  return new TrawlError('UNSUPPORTED_OPTION', `The option ${option} (${capability}) is not available on this server yet`, {
    details: { option, capability },
  });
}

/**
 * Throws for the first option that needs a capability this deployment lacks (see
 * {@link missingCapabilityError}): at validation, before anything is queued or charged.
 * @param prefix path of the options in the request (`scrapeOptions.` for a crawl), put before the option name.
 */
export function assertCapabilities(options: CapabilityInput, capabilities: ReadonlySet<Capability>, prefix = ''): void {
  const missing = requiredCapabilities(options).find((req: CapabilityRequirement) => !capabilities.has(req.capability));
  if (missing) throw missingCapabilityError(missing.capability, `${prefix}${missing.option}`);
}
