import type { CachedPage } from '@trawl/queue';

/**
 * What running the engines ended with: a document, or the job moved to another queue. A fresh result
 * carries `cacheable`, the page as the cache keeps it (stored when the request allows).
 */
export type RunResult =
  | { kind: 'document'; document: Record<string, unknown>; engine: string; links?: string[]; finalUrl: string; cacheable?: CachedPage }
  | { kind: 'handed-off' };
