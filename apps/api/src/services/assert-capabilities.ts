import { TrawlError, requiredCapabilities, type Capability, type CapabilityInput } from '@trawl/api-schema';

/**
 * Throws UNSUPPORTED_OPTION naming the first option that needs a capability this deployment lacks.
 * @param prefix path of the options in the request (`scrapeOptions.` for a crawl), put before the option name.
 */
export function assertCapabilities(options: CapabilityInput, capabilities: ReadonlySet<Capability>, prefix = ''): void {
  for (const req of requiredCapabilities(options)) {
    if (!capabilities.has(req.capability)) {
      throw new TrawlError('UNSUPPORTED_OPTION', `The option ${prefix}${req.option} (${req.capability}) is not available on this server yet`, {
        details: { option: `${prefix}${req.option}`, capability: req.capability },
      });
    }
  }
}
