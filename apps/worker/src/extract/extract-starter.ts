import { EXTRACT_WILDCARD_SUFFIX, TrawlError, mapRequestSchema, scrapeOptionsSchema, type ScrapeOptions } from '@trawl/api-schema';
import type { Logger } from '@trawl/observability';
import {
  nameUuid,
  type CrawlCoordinator, type CrawlStore, type ExtractJob, type ExtractRecord, type ExtractStore, type TeamStore, type WebhookSender,
} from '@trawl/queue';
import type { MapRunner } from '../crawl/map-runner.js';
import { searchPages, type WebSearch } from '../search/search-pages.js';
import { endExtract } from './end-extract.js';

export interface ExtractStarterDeps {
  extracts: ExtractStore;
  crawls: CrawlStore;
  coordinator: Pick<CrawlCoordinator, 'pump' | 'ended'>;
  mapRunner: Pick<MapRunner, 'run'>;
  teams: Pick<TeamStore, 'get' | 'isDisabled'>;
  webhooks: Pick<WebhookSender, 'send'>;
  logger: Logger;
  /** Most pages one extract reads (TRAWL_EXTRACT_MAX_PAGES). */
  maxPages: number;
  /** Time budget of the map of one `/*` URL, ms (also the budget of the web search). */
  mapTimeoutMs: number;
  /** Web search of `enableWebSearch` and of extracts without urls; absent: such extracts fail. */
  search?: WebSearch;
  /** Search results added to the pages (`enableWebSearch`). Default 5. */
  searchLimit?: number;
  shutdown: AbortSignal;
  now?: () => number;
}

type StartJob = Extract<ExtractJob, { kind: 'start' }>;

/** A batch has no page limit beyond its URL count; the crawl store still wants one. */
const BATCH_LIMIT = 1_000_000_000;

/** The batch of an extract's pages: its id derives from the extract, so a retried start finds it. */
export function extractBatchId(extractId: string): string {
  return nameUuid(`extract-batch:${extractId}`);
}

/**
 * The page scrape options of an extract: the caller's options with markdown as the only format (the
 * LLM reads markdown; other formats would only cost).
 */
export function extractPageOptions(options: ScrapeOptions | undefined): ScrapeOptions {
  return { ...(options ?? scrapeOptionsSchema.parse({})), formats: [{ type: 'markdown' }] };
}

/**
 * The start step of an extract: its `/*` URLs are expanded with a map (pages below that path, at most
 * `maxPages` pages in all), then an internal batch scrape of the pages starts, linked to the extract,
 * so its pages run as bulk jobs through the team's concurrency group like any batch, and its end
 * queues the extract's `finish` step. Every step can run again after a crash: the pages are stored on
 * the extract before the batch is created, and the batch id derives from the extract.
 */
export class ExtractStarter {
  private readonly now: () => number;

  constructor(private readonly deps: ExtractStarterDeps) {
    this.now = deps.now ?? Date.now;
  }

  async run(job: StartJob): Promise<void> {
    const { extracts, crawls, coordinator } = this.deps;
    let extract = await extracts.get(job.extractId);
    if (!extract || extract.status !== 'processing') return;
    const log = this.deps.logger.child({ extractId: extract.id });
    if (await this.deps.teams.isDisabled(extract.teamId)) {
      await this.fail(extract, 'The team was disabled before the extract started');
      return;
    }
    const batchId = extractBatchId(extract.id);
    if (extract.batchId === undefined) {
      const { pages, warnings, searchCredits } = await this.expand(extract);
      if (pages.length === 0) {
        await this.fail(extract, `No pages to extract from${warnings.length ? `: ${warnings.join('; ')}` : ''}`);
        return;
      }
      await extracts.started(extract.id, batchId, pages, warnings, searchCredits);
      extract = { ...extract, batchId, pages, startWarnings: warnings, searchCredits };
      log.info({ pages: pages.length }, 'extract pages listed');
    }
    let batch = await crawls.get(batchId);
    if (!batch) {
      const team = await this.deps.teams.get(extract.teamId);
      batch = await crawls.create({
        id: batchId, kind: 'batch', teamId: extract.teamId, url: '',
        request: { scrapeOptions: extractPageOptions(extract.request.scrapeOptions), origin: 'extract' },
        limit: BATCH_LIMIT, maxConcurrency: Math.max(1, team?.concurrency ?? 1), delayMs: 0,
        kickoffDone: false, zeroDataRetention: extract.zeroDataRetention, retentionSec: extract.retentionSec,
        createdAt: this.now(), extract: { extractId: extract.id },
      });
    }
    if (await extracts.claimOnce(extract.id, 'started')) {
      await this.deps.webhooks.send(extract.teamId, extract.request.webhook, { type: 'extract.started', id: extract.id }, {
        zeroDataRetention: extract.zeroDataRetention, webhookId: nameUuid(`extract-webhook:${extract.id}:started`),
      });
    }
    if (!batch.kickoffDone) {
      // Keys by position: a retry adds nothing twice.
      await crawls.enqueue(batchId, (extract.pages ?? []).map((url, i) => ({ key: `u${i}`, url, depth: 0 })));
      if (await crawls.kickoffDone(batchId)) {
        await coordinator.ended(batchId);
        return;
      }
    }
    await coordinator.pump(batchId);
  }

  /**
   * The pages of an extract: its URLs in order, each `/*` one replaced by the pages its map found,
   * then (`enableWebSearch`, or no URLs at all) the top results of a web search of the prompt.
   */
  private async expand(extract: ExtractRecord): Promise<{ pages: string[]; warnings: string[]; searchCredits: number }> {
    const pages = new Set<string>();
    const warnings: string[] = [];
    let capped = false;
    const add = (url: string) => {
      if (pages.size >= this.deps.maxPages) capped ||= !pages.has(url);
      else pages.add(url);
    };
    for (const url of extract.urls) {
      if (!url.endsWith(EXTRACT_WILDCARD_SUFFIX)) {
        add(url);
        continue;
      }
      if (pages.size >= this.deps.maxPages) {
        capped = true;
        continue;
      }
      const seed = new URL(url.slice(0, -EXTRACT_WILDCARD_SUFFIX.length) || url);
      if (!seed.pathname.endsWith('/')) seed.pathname += '/';
      try {
        for (const found of await this.mapSite(seed, extract.request.allowExternalLinks)) add(found);
      } catch (err) {
        if (this.deps.shutdown.aborted) throw err;
        // The site's own page is still read: the map only adds the others.
        warnings.push(`${extract.zeroDataRetention ? 'A site' : seed.href} could not be mapped (${TrawlError.from(err).message}); only its first page was read`);
        add(seed.href);
      }
    }
    let searchCredits = 0;
    if (extract.request.enableWebSearch || extract.urls.length === 0) {
      if (pages.size >= this.deps.maxPages) capped = true;
      else {
        const found = await this.webSearch(extract, warnings);
        searchCredits = found.creditsUsed;
        for (const url of found.urls) add(url);
      }
    }
    if (capped) warnings.push(`Only the first ${this.deps.maxPages} pages were read (TRAWL_EXTRACT_MAX_PAGES)`);
    return { pages: [...pages], warnings, searchCredits };
  }

  /**
   * The web search of an extract: its prompt (else the hosts of its URLs). A failed search of an
   * extract that has URLs only warns; without URLs it fails the extract (nothing to read).
   */
  private async webSearch(extract: ExtractRecord, warnings: string[]): Promise<{ urls: string[]; creditsUsed: number }> {
    const hosts = [...new Set(extract.urls.map((u) => new URL(u.endsWith(EXTRACT_WILDCARD_SUFFIX) ? u.slice(0, -EXTRACT_WILDCARD_SUFFIX.length) : u).hostname))];
    const query = extract.request.prompt ?? hosts.join(' ');
    if (this.deps.search === undefined) {
      if (extract.urls.length === 0) throw new TrawlError('UNSUPPORTED_OPTION', 'No search provider is configured on the workers (TRAWL_SEARCH_PROVIDER)');
      warnings.push('Web search was skipped: no search provider is configured on the workers');
      return { urls: [], creditsUsed: 0 };
    }
    try {
      const found = await searchPages(this.deps.search, {
        teamId: extract.teamId, query, limit: this.deps.searchLimit ?? 5, zeroDataRetention: extract.zeroDataRetention,
        signal: AbortSignal.any([this.deps.shutdown, AbortSignal.timeout(this.deps.mapTimeoutMs)]), timeoutMs: this.deps.mapTimeoutMs,
      });
      if (found.warning !== undefined) warnings.push(`Web search: ${found.warning}`);
      if (found.urls.length === 0) warnings.push('The web search found no pages');
      return found;
    } catch (err) {
      if (this.deps.shutdown.aborted || extract.urls.length === 0) throw err;
      warnings.push(`The web search failed (${TrawlError.from(err).message}); only the given URLs were read`);
      return { urls: [], creditsUsed: 0 };
    }
  }

  /** The pages of a site below the seed's path (other hosts only with `allowExternalLinks`). */
  private async mapSite(seed: URL, allowExternalLinks: boolean): Promise<string[]> {
    const request = mapRequestSchema.parse({
      url: seed.href, limit: Math.min(5_000, this.deps.maxPages * 4), includeSubdomains: allowExternalLinks, timeout: this.deps.mapTimeoutMs,
    });
    const links = await this.deps.mapRunner.run(request, { deadline: this.now() + this.deps.mapTimeoutMs, shutdown: this.deps.shutdown });
    const below = links.map((l) => l.url).filter((u) => {
      const url = new URL(u);
      return (allowExternalLinks || url.host === seed.host) && url.pathname.startsWith(seed.pathname);
    });
    // The seed first: the site's own page is the likeliest to hold the answer.
    return below.includes(seed.href) ? [seed.href, ...below.filter((u) => u !== seed.href)] : below;
  }

  private async fail(extract: ExtractRecord, error: string): Promise<void> {
    await endExtract(this.deps, extract, { status: 'failed', error }, this.now());
  }
}
