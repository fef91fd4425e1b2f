import type { FormatObject } from './formats.js';
import type { ScrapeOptions } from './scrape-options.js';

/** Capabilities beyond a plain HTTP fetch and HTML conversion, with what each one needs. */
export const CAPABILITIES = {
  actions: 'A browser to run `actions`.',
  screenshot: 'A browser to take a screenshot (`screenshot` format).',
  waitFor: 'A browser to wait after load (`waitFor` > 0).',
  mobile: 'A browser emulating a mobile device.',
  location: 'Geolocated proxy and locale/timezone emulation (`location` given explicitly).',
  profile: 'A persistent browser profile store.',
  json: 'An LLM for `json` extraction.',
  summary: 'An LLM for the `summary` format.',
  changeTracking: 'Stored previous versions to diff against (`changeTracking` format).',
  'changeTracking:json': 'An LLM to compare extractions (`changeTracking` mode `json`).',
  question: 'An LLM to answer a `question` format.',
  highlights: 'An LLM to pick `highlights`.',
  audio: 'Audio extraction (`audio` format).',
  branding: 'Brand extraction (`branding` format).',
  menu: 'Menu extraction (`menu` format).',
  product: 'Product extraction (`product` format).',
  video: 'Video extraction (`video` format).',
  query: 'The deprecated `query` format (use `question`).',
  onlyCleanContent: 'An LLM cleaning pass over the markdown.',
  redactPII: 'PII detection and masking.',
  'proxy:enhanced': 'An enhanced (anti-bot) proxy pool.',
  lockdown: 'A page cache (lockdown serves from cache only).',
  minAge: 'A page cache (minAge serves from cache only).',
} as const;

/** A capability name; see {@link CAPABILITIES}. */
export type Capability = keyof typeof CAPABILITIES;

/** One requested capability and the option that asked for it. */
export interface CapabilityRequirement {
  capability: Capability;
  /** Path of the option in the request, e.g. `formats[1]`, `actions`, `proxy`; usable as `details.option`. */
  option: string;
}

const FORMAT_CAPABILITIES: Partial<Record<FormatObject['type'], Capability>> = {
  screenshot: 'screenshot',
  json: 'json',
  summary: 'summary',
  changeTracking: 'changeTracking',
  question: 'question',
  highlights: 'highlights',
  audio: 'audio',
  branding: 'branding',
  menu: 'menu',
  product: 'product',
  video: 'video',
  query: 'query',
};

/** The parsed options {@link requiredCapabilities} reads; a parsed scrape request or crawl `scrapeOptions` fits. */
export type CapabilityInput = Pick<
  ScrapeOptions,
  | 'formats'
  | 'actions'
  | 'waitFor'
  | 'mobile'
  | 'location'
  | 'profile'
  | 'onlyCleanContent'
  | 'redactPII'
  | 'proxy'
  | 'lockdown'
  | 'minAge'
>;

/**
 * Lists what a parsed request needs beyond plain HTTP, in a stable order (formats first, then options
 * in declaration order), so the API can answer 400 `UNSUPPORTED_OPTION` naming the first unmet option.
 * `location` counts only when sent (it has no default object); `waitFor` only when above 0.
 */
export function requiredCapabilities(options: CapabilityInput): CapabilityRequirement[] {
  const out: CapabilityRequirement[] = [];
  options.formats.forEach((format, index) => {
    const capability = FORMAT_CAPABILITIES[format.type];
    if (capability !== undefined) out.push({ capability, option: `formats[${index}]` });
    if (format.type === 'changeTracking' && format.modes?.includes('json')) {
      out.push({ capability: 'changeTracking:json', option: `formats[${index}].modes` });
    }
  });
  const add = (when: boolean, capability: Capability, option: string = capability): void => {
    if (when) out.push({ capability, option });
  };
  add(options.actions !== undefined && options.actions.length > 0, 'actions');
  add(options.waitFor > 0, 'waitFor');
  add(options.mobile, 'mobile');
  add(options.location !== undefined, 'location');
  add(options.profile !== undefined, 'profile');
  add(options.onlyCleanContent, 'onlyCleanContent');
  add(options.redactPII !== false, 'redactPII');
  add(options.proxy === 'enhanced', 'proxy:enhanced', 'proxy');
  add(options.lockdown, 'lockdown');
  add(options.minAge !== undefined, 'minAge');
  return out;
}

/** Capabilities that only the browser engine serves. */
export const BROWSER_CAPABILITIES: ReadonlySet<Capability> = new Set<Capability>([
  'actions', 'screenshot', 'waitFor', 'mobile', 'location', 'profile', 'proxy:enhanced',
]);

/**
 * Whether a request must run in a browser from the start (actions, screenshot, waitFor, mobile,
 * location, profile, enhanced proxy). Others start on plain HTTP and move to the browser only when
 * the page turns out to need JavaScript.
 */
export function needsBrowser(options: CapabilityInput): boolean {
  return requiredCapabilities(options).some((r) => BROWSER_CAPABILITIES.has(r.capability));
}
