import type { Llm, LlmCallOptions, LlmUsage } from '../types.js';

/** The crawl options a prompt may derive (the spec's params-preview table, without `url`). */
export interface CrawlPromptOptions {
  includePaths?: string[];
  excludePaths?: string[];
  maxDepth?: number;
  maxDiscoveryDepth?: number;
  crawlEntireDomain?: boolean;
  allowExternalLinks?: boolean;
  allowSubdomains?: boolean;
  sitemap?: 'include' | 'skip' | 'only';
  ignoreQueryParameters?: boolean;
  deduplicateSimilarURLs?: boolean;
  ignoreRobotsTxt?: boolean;
  robotsUserAgent?: string;
  delay?: number;
  limit?: number;
}

/**
 * Crawl `prompt` and params-preview: from the prompt and the site's real URLs (a map of up to ~100),
 * the options of the preview table. Invalid regular expressions are dropped with a warning.
 * TODO(helper llm-crawl).
 */
export async function deriveCrawlOptions(
  llm: Llm,
  request: Omit<LlmCallOptions, 'feature'> & { url: string; prompt: string; sampleUrls: readonly string[] },
): Promise<{ options: CrawlPromptOptions; warnings: string[]; usage: LlmUsage }> {
  void llm; void request;
  throw new Error('not implemented');
}
