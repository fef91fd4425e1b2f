import { createTwoFilesPatch } from 'diff';
import type { ScrapeRequest } from '@trawl/api-schema';
import { urlKey } from '@trawl/crawl';
import type { ChangeStore, PageSnapshot, ScrapeJob } from '@trawl/queue';
import type { WorkerMetrics } from '../worker-metrics.js';

/** `Document.changeTracking` (null for a page whose status cannot be compared, e.g. a 503). */
export interface ChangeTrackingResult {
  changeStatus: 'new' | 'same' | 'changed' | 'removed';
  visibility: 'visible' | 'hidden';
  previousScrapeAt: string | null;
  diff?: string | null;
  /** Only in mode json: `{field: {previous, current}}` (with schema/prompt) or an account of the change. */
  json?: Record<string, unknown> | null;
}

/** Tag of a `changeTracking` format without one. */
export const DEFAULT_CHANGE_TAG = 'default';
/** A diff that takes longer than this is given up (the page still reports `changed`), ms. */
const DIFF_TIMEOUT_MS = 1000;
/** Versions longer than this are not diffed (the diff would be as big as the page), characters. */
const MAX_DIFF_INPUT = 1_000_000;
/** Longest diff returned; a longer one is cut at a line end and marked, characters. */
export const MAX_DIFF_CHARS = 256 * 1024;

/** Markdown as compared: trailing spaces and runs of blank lines do not make a change. Linear time. */
export function normalizeForComparison(markdown: string): string {
  const out: string[] = [];
  let blank = 0;
  for (const line of markdown.split('\n')) {
    const trimmed = line.trimEnd();
    blank = trimmed === '' ? blank + 1 : 0;
    if (blank < 2) out.push(trimmed);
  }
  return out.join('\n').trim();
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

/** A unified diff that replaces every line: one hunk, all old lines removed, all new lines added. */
function replacementPatch(previous: string, current: string): string {
  const before = previous ? previous.split('\n') : [];
  const after = current ? current.split('\n') : [];
  const range = (n: number) => (n === 0 ? '0,0' : `1,${n}`);
  return [
    '===================================================================', '--- previous', '+++ current',
    `@@ -${range(before.length)} +${range(after.length)} @@`, ...before.map((l) => `-${l}`), ...after.map((l) => `+${l}`), '',
  ].join('\n');
}

/**
 * Unified diff of two markdown versions (`git-diff` mode), at most {@link MAX_DIFF_CHARS} (cut at a
 * line end and marked); null when a version is too big to diff.
 */
export function markdownDiff(previous: string, current: string): string | null {
  if (previous.length > MAX_DIFF_INPUT || current.length > MAX_DIFF_INPUT) return null;
  const patch = createTwoFilesPatch('previous', 'current', previous ? `${previous}\n` : '', current ? `${current}\n` : '', undefined, undefined, {
    context: 3, timeout: DIFF_TIMEOUT_MS,
  });
  // Too many edits to diff in time (a page rewritten): the whole old version out, the new one in.
  const text = patch ?? replacementPatch(previous, current);
  if (text.length <= MAX_DIFF_CHARS) return text;
  const cut = text.lastIndexOf('\n', MAX_DIFF_CHARS);
  return `${text.slice(0, cut > 0 ? cut : MAX_DIFF_CHARS)}\n\\ diff truncated at ${MAX_DIFF_CHARS} characters\n`;
}

/** Whether a page's status can be compared: a real page (2xx) or a gone one (404/410). */
export function isComparable(statusCode: number): boolean {
  return (statusCode >= 200 && statusCode < 300) || isGone(statusCode);
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

  /**
   * Records this version and says how it relates to the previous one: null for a page whose status
   * cannot be compared (a 5xx, a 429, a bot wall: not a version; the stored one stays the baseline),
   * undefined when the request does not ask for change tracking.
   */
  async track(
    job: ScrapeJob, request: ScrapeRequest, page: { markdown: string; statusCode: number }, opts: { hidden?: boolean } = {},
  ): Promise<ChangeTrackingResult | null | undefined> {
    const compared = await this.compare(job, request, page, opts);
    return compared === null || compared === undefined ? compared : compared.result;
  }

  /**
   * {@link track}, with the two versions compared (normalized markdown; '' for a gone page or none
   * before): mode `json` compares them with the LLM.
   */
  async compare(
    job: ScrapeJob, request: ScrapeRequest, page: { markdown: string; statusCode: number }, opts: { hidden?: boolean } = {},
  ): Promise<{ result: ChangeTrackingResult; previousMarkdown: string | null; markdown: string } | null | undefined> {
    const format = request.formats.find((f) => f.type === 'changeTracking');
    if (format?.type !== 'changeTracking') return undefined;
    const { statusCode } = page;
    if (!isComparable(statusCode)) return null;
    const gone = isGone(statusCode);
    const markdown = gone ? '' : normalizeForComparison(page.markdown);
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
    return { result, previousMarkdown: previous ? (previous.gone ? '' : previous.markdown) : null, markdown };
  }
}
