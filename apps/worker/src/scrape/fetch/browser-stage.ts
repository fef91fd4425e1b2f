import { UnrecoverableError } from 'bullmq';
import type { ScrapeRequest } from '@trawl/api-schema';
import type { BrowserFetchResult, StorageState } from '@trawl/browser';
import { scrapeCredits } from '@trawl/queue';
import type { ProxyTier } from '@trawl/scrape-engine';
import { storeBrowserBinaries } from '../browser-binaries.js';
import { isBotWall } from '../page-signals.js';
import type { BrowserEngine, ScrapeContext, ScrapeDeps } from '../pipeline/context.js';
import { dropsBrokenLinks } from '../pipeline/finish.js';
import { documentTakeOver } from './document-takeover.js';
import type { FetchStage, StageOutcome } from './fetch-stage.js';
import { cacheablePage } from './http-stage.js';
import { proxyFor } from './proxy.js';

type BrowserStageDeps = Pick<
  ScrapeDeps, 'browser' | 'proxies' | 'profiles' | 'blobs' | 'blobUrlTtlSec' | 'maxResponseBytes' | 'maxActionReturnBytes' | 'documentParsing'
> & { now: () => number };

/**
 * The fetch stage of the `browser` queue. `enhanced` (asked for, or the `auto` retry after a block)
 * uses the stealth browser and the enhanced pool; `auto` that meets a bot wall on the basic tier
 * retries in place. Loads and saves the request's profile; stores screenshots and action binaries.
 */
export class BrowserStage implements FetchStage {
  constructor(private readonly deps: BrowserStageDeps) {}

  async fetch(ctx: ScrapeContext): Promise<StageOutcome> {
    const { job, request } = ctx;
    const browser = this.deps.browser;
    if (!browser) throw new UnrecoverableError('a browser job reached a process without the browser role');
    const profile = request.profile;
    const saveProfile = profile !== undefined && profile.saveChanges;
    if (saveProfile) await this.deps.profiles.lockForSaving(job.teamId, profile.name, job.jobId, job.deadline - this.deps.now() + 30_000);
    try {
      const storageState = profile ? (await this.deps.profiles.load(job.teamId, profile.name)) as StorageState | undefined : undefined;
      let tier: ProxyTier = request.proxy === 'enhanced' || job.escalation === 'blocked' ? 'enhanced' : 'basic';
      let page = await this.browserFetch(browser, ctx, tier, storageState, saveProfile);
      if (tier === 'basic' && request.proxy === 'auto' && isBotWall(page.statusCode, page.text)) {
        ctx.log.info({ statusCode: page.statusCode }, 'blocked on the basic tier, retrying with the enhanced tier');
        tier = 'enhanced';
        page = await this.browserFetch(browser, ctx, tier, storageState, saveProfile);
      }
      if (saveProfile && page.storageState) await this.deps.profiles.save(job.teamId, profile.name, page.storageState);
      const toDocuments = documentTakeOver(request, page, tier, this.deps.documentParsing);
      if (toDocuments) return toDocuments;
      const binaries = await storeBrowserBinaries(page, {
        blobs: this.deps.blobs, teamId: job.teamId, jobId: job.jobId, urlTtlSec: this.deps.blobUrlTtlSec, signal: ctx.signals.next().signal,
      });
      const engine = tier === 'enhanced' ? 'browser-stealth' : 'browser';
      const shot = request.formats.find((f) => f.type === 'screenshot');
      const cacheable = cacheablePage(page, {
        engine, proxyUsed: tier, cachedAt: this.deps.now(), timezone: page.timezone,
        ...(page.screenshot && shot?.type === 'screenshot' ? {
          screenshot: {
            data: page.screenshot.data, contentType: page.screenshot.contentType === 'image/jpeg' ? 'image/jpeg' : 'image/png', fullPage: shot.fullPage,
            ...(shot.quality !== undefined ? { quality: shot.quality } : {}), ...(shot.viewport ? { viewport: shot.viewport } : {}),
          },
        } : {}),
      });
      return {
        kind: 'page',
        source: {
          engine, page, proxyUsed: tier, creditsUsed: scrapeCredits({ proxyUsed: tier }), binaries,
          ...(page.timezone !== undefined ? { timezone: page.timezone } : {}), ...(cacheable ? { cacheable } : {}),
        },
      };
    } finally {
      if (saveProfile) await this.deps.profiles.unlock(job.teamId, profile.name, job.jobId);
    }
  }

  private browserFetch(
    browser: BrowserEngine, ctx: ScrapeContext, tier: ProxyTier, storageState: StorageState | undefined, captureStorageState: boolean,
  ): Promise<BrowserFetchResult> {
    const request: ScrapeRequest = ctx.request;
    const { signal, remaining } = ctx.signals.next();
    const screenshot = request.formats.find((f) => f.type === 'screenshot');
    return browser.fetch({
      url: request.url,
      headers: request.headers ?? {},
      skipTlsVerification: request.skipTlsVerification,
      signal,
      timeoutMs: remaining,
      maxBytes: this.deps.maxResponseBytes,
      maxActionReturnBytes: this.deps.maxActionReturnBytes,
      ...proxyFor(this.deps.proxies, tier, request),
      stealth: tier === 'enhanced',
      mobile: request.mobile,
      blockAds: request.blockAds,
      waitForMs: request.waitFor,
      dropsErrorPages: dropsBrokenLinks(ctx.job, request),
      ...(request.actions?.length ? { actions: request.actions } : {}),
      ...(request.location ? { location: request.location } : {}),
      ...(screenshot?.type === 'screenshot'
        ? { screenshot: { fullPage: screenshot.fullPage, quality: screenshot.quality, viewport: screenshot.viewport } }
        : {}),
      ...(storageState ? { storageState } : {}),
      captureStorageState,
      // The pages of one crawl are one site session: they may share a context (never across crawls or teams).
      ...(ctx.job.crawl?.kind === 'crawl' ? { session: `${ctx.job.teamId}:${ctx.job.crawl.id}` } : {}),
    });
  }
}
