import { createTwoFilesPatch } from 'diff';
import type { ScrapeRequest } from '@trawl/api-schema';
import { urlKey } from '@trawl/crawl';
import type { ChangeStore, PageSnapshot, ScrapeJob } from '@trawl/queue';
import type { WorkerMetrics } from '../worker-metrics.js';

/** `Document.changeTracking`. */
export interface ChangeTrackingResult {
  changeStatus: 'new' | 'same' | 'changed' | 'removed';
  visibility: 'visible' | 'hidden';
  previousScrapeAt: string | null;
  diff?: string | null;
}

/** Tag of a `changeTracking` format without one. */
export const DEFAULT_CHANGE_TAG = 'default';
/** A diff that takes longer than this is given up (the page still reports `changed`), ms. */
const DIFF_TIMEOUT_MS = 2000;

/** Markdown as compared: trailing spaces and runs of blank lines do not make a change. */
export function normalizeForComparison(markdown: string): string {
  return markdown.replace(/[ \t]+$/gm, '').replace(/\n{3,}/g, '\n\n').trim();
}

/** A page is gone when it answers 404 or 410. */
export function isGone(statusCode: number): boolean {
  return statusCode === 404 || statusCode === 410;
}

/** How the current version relates to the previous one. */
export function changeStatusOf(previous: PageSnapshot | null, current: { markdown: string; gone: boolean }): ChangeTrackingResult['changeStatus'] {
  if (!previous) return 'new';
  if (current.gone) return previous.gone ? 'same' : 'removed';
  if (previous.gone) return 'changed';
  return previous.markdown === current.markdown ? 'same' : 'changed';
}

/** Unified diff of two markdown versions (`git-diff` mode); null when it took too long. */
export function markdownDiff(previous: string, current: string): string | null {
  const patch = createTwoFilesPatch('previous', 'current', previous ? `${previous}\n` : '', current ? `${current}\n` : '', undefined, undefined, {
    context: 3, timeout: DIFF_TIMEOUT_MS,
  });
  return patch ?? null;
}

/**
 * The `changeTracking` format: compares the page's markdown with the previous scrape of the same URL
 * by the same team under the same tag, records this version as the new previous one (durably, in the
 * queue Redis), and puts the result in `document.changeTracking`. A page that now answers 404/410 is
 * `removed`. `visibility` is `hidden` for crawl pages known only from earlier crawls.
 */
export class ChangeTracker {
  private readonly now: () => number;

  constructor(
    private readonly store: ChangeStore,
    private readonly metrics: Pick<WorkerMetrics, 'changeTracking'>,
    now?: () => number,
  ) {
    this.now = now ?? Date.now;
  }

  /** Whether the request asks for change tracking. */
  static wanted(request: ScrapeRequest): boolean {
    return request.formats.some((f) => f.type === 'changeTracking');
  }

  async track(job: ScrapeJob, request: ScrapeRequest, document: Record<string, unknown>, opts: { hidden?: boolean } = {}): Promise<void> {
    const format = request.formats.find((f) => f.type === 'changeTracking');
    if (format?.type !== 'changeTracking') return;
    const metadata = (document.metadata ?? {}) as { statusCode?: number };
    const gone = isGone(metadata.statusCode ?? 200);
    const markdown = gone ? '' : normalizeForComparison(typeof document.markdown === 'string' ? document.markdown : '');
    const key = urlKey(request.url, { ignoreQueryParameters: false, deduplicateSimilarURLs: true }) ?? request.url;
    const previous = await this.store.record(job.teamId, format.tag ?? DEFAULT_CHANGE_TAG, key, {
      url: request.url, markdown, scrapedAt: this.now(), scrapeId: job.jobId, gone,
    });
    const changeStatus = changeStatusOf(previous, { markdown, gone });
    this.metrics.changeTracking.inc({ status: changeStatus });
    const result: ChangeTrackingResult = {
      changeStatus,
      visibility: opts.hidden ? 'hidden' : 'visible',
      previousScrapeAt: previous ? new Date(previous.scrapedAt).toISOString() : null,
    };
    if (format.modes?.includes('git-diff')) {
      result.diff = previous && (changeStatus === 'changed' || changeStatus === 'removed') ? markdownDiff(previous.markdown, markdown) : null;
    }
    document.changeTracking = result;
    // Markdown was made for the comparison; it is returned only when asked for.
    if (!request.formats.some((f) => f.type === 'markdown')) delete document.markdown;
  }
}
