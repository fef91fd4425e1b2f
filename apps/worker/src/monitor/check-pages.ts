import type { MonitorCheckStatus, MonitorPageStatus, MonitorSummary } from '@trawl/api-schema';
import { nameUuid, type CrawlError, type MonitorPageRecord } from '@trawl/queue';

/** Where the pages of a check come from: its id, the target, and the time they are recorded. */
export interface PageContext {
  checkId: string;
  targetId: string;
  now: number;
}

const CHANGE_STATUSES: ReadonlySet<string> = new Set(['new', 'same', 'changed', 'removed']);

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length > 0 ? v : undefined;
}

/** A page's id: the same for the same URL of a target in a check (a finishing step that runs again keeps it). */
function pageId(ctx: PageContext, url: string): string {
  return nameUuid(`monitor-page:${ctx.checkId}:${ctx.targetId}:${url}`);
}

/**
 * The check page of a scraped document: the status is the document's `changeTracking.changeStatus`
 * (a document without one, which change tracking should never produce, is an `error` page); the
 * git diff goes to `diff.text`. Pages gone from a site are `removed` by change tracking itself: a
 * crawl with change tracking also scrapes the pages earlier crawls under its tag saw. Pure.
 */
export function documentPage(doc: Record<string, unknown>, ctx: PageContext): MonitorPageRecord {
  const metadata = (typeof doc.metadata === 'object' && doc.metadata !== null ? doc.metadata : {}) as Record<string, unknown>;
  const url = str(metadata.sourceURL) ?? str(metadata.url) ?? '';
  const tracking = (typeof doc.changeTracking === 'object' && doc.changeTracking !== null ? doc.changeTracking : {}) as Record<string, unknown>;
  const known = typeof tracking.changeStatus === 'string' && CHANGE_STATUSES.has(tracking.changeStatus);
  const diff = str(tracking.diff);
  const title = str(metadata.title);
  const finalUrl = str(metadata.url);
  // `hidden`: a crawl page no longer linked, compared because an earlier check saw it.
  const visibility = str(tracking.visibility);
  const facts = { ...(title !== undefined ? { title } : {}), ...(finalUrl !== undefined ? { url: finalUrl } : {}), ...(visibility !== undefined ? { visibility } : {}) };
  return {
    id: pageId(ctx, url),
    targetId: ctx.targetId,
    url,
    status: known ? (tracking.changeStatus as MonitorPageStatus) : 'error',
    currentScrapeId: str(metadata.scrapeId) ?? null,
    statusCode: typeof metadata.statusCode === 'number' ? metadata.statusCode : null,
    error: known ? null : typeof metadata.statusCode === 'number' && metadata.statusCode >= 300
      ? `The page answered HTTP ${metadata.statusCode}; it was not compared`
      : 'The page has no change tracking result',
    ...(Object.keys(facts).length > 0 ? { metadata: facts } : {}),
    diff: known && diff !== undefined ? { text: diff } : null,
    createdAt: ctx.now,
  };
}

/** The check page of a page that failed (listed in the crawl's errors). Pure. */
export function errorPage(error: CrawlError, ctx: PageContext): MonitorPageRecord {
  return {
    id: pageId(ctx, error.url),
    targetId: ctx.targetId,
    url: error.url,
    status: 'error',
    currentScrapeId: null,
    statusCode: null,
    error: error.error,
    metadata: { code: error.code },
    diff: null,
    createdAt: ctx.now,
  };
}

/** Pages by status. Pure. */
export function summarize(pages: readonly MonitorPageRecord[]): MonitorSummary {
  const summary: MonitorSummary = { totalPages: pages.length, same: 0, changed: 0, new: 0, removed: 0, error: 0 };
  for (const p of pages) summary[p.status] += 1;
  return summary;
}

/** Whether a page is news for a receiver: `new`, `changed` or `removed`. */
export function isChange(page: Pick<MonitorPageRecord, 'status'>): boolean {
  return page.status === 'new' || page.status === 'changed' || page.status === 'removed';
}

/**
 * A finished check's status and error: `failed` when nothing was compared (every page failed, or
 * every target's crawl failed with no page); `partial` when a target's crawl failed or was cancelled,
 * or some pages failed; `completed` otherwise. Pure.
 */
export function checkOutcome(summary: MonitorSummary, targetFailures: readonly string[], targets: number): { status: MonitorCheckStatus; error: string | null } {
  const compared = summary.totalPages - summary.error;
  const pageErrors = summary.error > 0 ? `${summary.error} of ${summary.totalPages} pages failed` : null;
  const error = [...targetFailures, ...(pageErrors ? [pageErrors] : [])].join('; ') || null;
  if (compared === 0 && (summary.error > 0 || (targets > 0 && targetFailures.length >= targets))) return { status: 'failed', error };
  if (targetFailures.length > 0 || summary.error > 0) return { status: 'partial', error };
  return { status: 'completed', error: null };
}
