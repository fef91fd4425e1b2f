import { createHash, randomUUID } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import type { Redis } from 'ioredis';
import type { CrawlRequest, Document, ScrapeOptions } from '@trawl/api-schema';
import { endScript, enqueueScript, kickoffDoneScript, pageDoneNextScript, pageDoneScript, pageStateScript, pumpScript } from './crawl-scripts.js';
import type { RedisKeys } from './redis-keys.js';
import { releaseLockScript } from './redis-script.js';
import { deflateRawBuffer } from './small-compress.js';

/** A crawl discovers pages from links; a batch scrape has a fixed (appendable) URL list. */
export type CrawlKind = 'crawl' | 'batch';
export type CrawlStatus = 'scraping' | 'completed' | 'failed' | 'cancelled';

/** A crawl or batch as stored. Times are ms since epoch. */
export interface CrawlRecord {
  id: string;
  kind: CrawlKind;
  teamId: string;
  status: CrawlStatus;
  /** Seed URL (crawl) or '' (batch). */
  url: string;
  /** The validated crawl or batch request (defaults applied). */
  request: CrawlRecordRequest;
  createdAt: number;
  completedAt?: number;
  /** Pages accepted for scraping so far. */
  total: number;
  /** Pages scraped into documents. */
  completed: number;
  /** Pages that failed (listed by `/errors`). */
  failed: number;
  creditsUsed: number;
  limit: number;
  maxConcurrency: number;
  /** Minimum time between two page starts, ms (0: none). */
  delayMs: number;
  /** Seeding (robots.txt, sitemaps, seed) is over. */
  kickoffDone: boolean;
  zeroDataRetention: boolean;
  /** Why a failed crawl failed. */
  error?: string;
  /** How long the record stays after the end, seconds. */
  retentionSec: number;
  /** Set when a monitor check runs this crawl or batch for one of its targets. */
  monitor?: CrawlMonitorLink;
  /** Set on the internal batch scrape of an extract's pages: its end starts the extract's `finish` step. */
  extract?: { extractId: string };
}

/**
 * The request a crawl or batch keeps (JSON in its hash, read back as written): a crawl's parsed
 * `POST /v2/crawl` body; a batch's page options with its webhook and origin; a monitor target's crawl
 * options or page options. Every page's scrape job starts from `scrapeOptions` (parsed options; the
 * worker validates the page's request again when it runs it).
 */
export interface CrawlRecordRequest extends Partial<Omit<CrawlRequest, 'scrapeOptions'>> {
  scrapeOptions: ScrapeOptions;
}

/** The monitor check target a crawl or batch belongs to: its end is reported to the check. */
export interface CrawlMonitorLink {
  monitorId: string;
  checkId: string;
  targetId: string;
}

/**
 * When a crawl's results expire: a fixed time, never moved by reads (creation + retention while it
 * runs, end + retention after).
 */
export function crawlExpiresAt(crawl: Pick<CrawlRecord, 'createdAt' | 'completedAt' | 'retentionSec'>): Date {
  return new Date((crawl.completedAt ?? crawl.createdAt) + crawl.retentionSec * 1000);
}

/** Input of {@link CrawlStore.create}. */
export type NewCrawl = Omit<CrawlRecord, 'status' | 'createdAt' | 'completedAt' | 'total' | 'completed' | 'failed' | 'creditsUsed' | 'kickoffDone' | 'error'> & {
  /** Batches need no seeding step. */
  kickoffDone: boolean;
  createdAt?: number;
};

/** A URL found for a crawl: its dedupe key, discovery depth, and whether robots.txt blocks it. */
export interface CrawlCandidate {
  key: string;
  url: string;
  depth: number;
  robotsBlocked?: boolean;
  /** Known only from earlier crawls (change tracking): scraped after every page found organically. */
  hidden?: boolean;
}

/** A page handed out by {@link CrawlStore.pump}: submit it as a scrape job with this id. */
export interface CrawlPage {
  jobId: string;
  url: string;
  depth: number;
  /** Known only from earlier crawls (`changeTracking.visibility: hidden`). */
  hidden?: boolean;
}

export interface PumpResult {
  /** `ok`, `busy` (no room), `wait` (delay: pump again at `waitUntil`), `completed`, or the crawl's status. */
  state: string;
  waitUntil: number;
  pages: CrawlPage[];
}

/** A page's outcome for {@link CrawlStore.pageDone}. */
export type PageOutcome =
  /** `documentJson`: `JSON.stringify(document)`, when the caller has it (stored instead of serializing again). */
  | { kind: 'doc'; document: Document; documentJson?: string; creditsUsed: number; finalKey?: string }
  | { kind: 'error'; error: CrawlError; creditsUsed?: number }
  | { kind: 'drop' };

/** An entry of `GET /v2/crawl/:id/errors`. */
export interface CrawlError {
  id: string;
  timestamp: string;
  url: string;
  code: string;
  error: string;
}

export interface PageDoneResult {
  /** `ok`, `dup` (already recorded), `duplicate-url` (redirected to a known page), `ignored` (crawl over). */
  result: string;
  /** This page completed the crawl. */
  completed: boolean;
  /** Documents stored so far. */
  documents: number;
}

/** What {@link CrawlStore.pageDoneNext} did: the page's record, its links added, the next pages taken. */
export interface PageDoneNextResult extends PageDoneResult {
  accepted: number;
  robotsBlocked: number;
  /** The pump that followed (null when none ran: the page was a `dup` or completed the crawl). */
  pump: PumpResult | null;
}

/** Progress event published on the crawl events channel. */
export interface CrawlEvent {
  crawlId: string;
  type: 'document' | 'done';
}

/** Default window of {@link CrawlStore.announceDocument}, ms. */
const DOCUMENT_EVENT_MS = 50;
/** Crawls whose last `document` event is remembered before stale entries are dropped. */
const DOCUMENT_EVENT_CRAWLS = 1_000;

/** Candidates per enqueue script call. */
const ENQUEUE_CHUNK = 1_000;

const NUMERIC = ['createdAt', 'completedAt', 'total', 'completed', 'failed', 'creditsUsed', 'limit', 'maxConcurrency', 'delayMs', 'retentionSec'] as const;

/**
 * Crawl and batch-scrape state in Redis (owner of the `{c:ID}` key family): the frontier, the pages
 * in flight, documents, errors and counters, all changed by atomic scripts. Documents are stored
 * deflated (a 10,000-page crawl must fit in Redis memory).
 */
export class CrawlStore {
  /** Per crawl: when its last `document` event went out, and whether a trailing one is scheduled. */
  private readonly documentEvents = new Map<string, { at: number; trailing: boolean }>();
  private readonly documentEventMs: number;

  /** `documentEventMs`: at most one `document` event per crawl per this many ms (see {@link announceDocument}); default 50. */
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    opts: { documentEventMs?: number } = {},
  ) {
    this.documentEventMs = opts.documentEventMs ?? DOCUMENT_EVENT_MS;
  }

  async create(crawl: NewCrawl): Promise<CrawlRecord> {
    const createdAt = crawl.createdAt ?? Date.now();
    const [hash] = this.keys.crawl(crawl.id) as [string];
    await this.redis.hset(hash, {
        kind: crawl.kind, teamId: crawl.teamId, status: 'scraping', url: crawl.url, request: JSON.stringify(crawl.request),
        createdAt, total: 0, completed: 0, failed: 0, creditsUsed: 0, limit: crawl.limit, maxConcurrency: crawl.maxConcurrency,
        delayMs: crawl.delayMs, kickoff: crawl.kickoffDone ? '1' : '0', zdr: crawl.zeroDataRetention ? '1' : '0',
        retentionSec: crawl.retentionSec, seq: 0,
        ...(crawl.monitor ? { monitor: JSON.stringify(crawl.monitor) } : {}),
        ...(crawl.extract ? { extract: crawl.extract.extractId } : {}),
    });
    // Separate commands: the crawl, team and index keys live in different Cluster slots. A crash
    // in between leaves a crawl the watchdog does not see yet; the caller's retry creates another.
    await this.reindex({ id: crawl.id, teamId: crawl.teamId, createdAt }, createdAt);
    return (await this.get(crawl.id))!;
  }

  async get(crawlId: string): Promise<CrawlRecord | null> {
    const h = await this.redis.hgetall(this.keys.crawl(crawlId)[0]!);
    if (!h.status || !h.teamId) return null;
    const n = Object.fromEntries(NUMERIC.map((k) => [k, h[k] === undefined || h[k] === '' ? undefined : Number(h[k])])) as Record<(typeof NUMERIC)[number], number | undefined>;
    return {
      id: crawlId,
      kind: h.kind === 'batch' ? 'batch' : 'crawl',
      teamId: h.teamId,
      status: h.status as CrawlStatus,
      url: h.url ?? '',
      request: JSON.parse(h.request ?? '{}') as CrawlRecordRequest,
      createdAt: n.createdAt ?? 0,
      ...(n.completedAt !== undefined ? { completedAt: n.completedAt } : {}),
      total: n.total ?? 0,
      completed: n.completed ?? 0,
      failed: n.failed ?? 0,
      creditsUsed: n.creditsUsed ?? 0,
      limit: n.limit ?? 0,
      maxConcurrency: n.maxConcurrency ?? 1,
      delayMs: n.delayMs ?? 0,
      kickoffDone: h.kickoff === '1',
      zeroDataRetention: h.zdr === '1',
      ...(h.error ? { error: h.error } : {}),
      retentionSec: n.retentionSec ?? 86_400,
      ...(h.monitor ? { monitor: JSON.parse(h.monitor) as CrawlMonitorLink } : {}),
      ...(h.extract ? { extract: { extractId: h.extract } } : {}),
    };
  }

  /** Just the status (one field: cheaper than {@link get} on every page). */
  async status(crawlId: string): Promise<CrawlStatus | null> {
    return (await this.redis.hget(this.keys.crawl(crawlId)[0]!, 'status')) as CrawlStatus | null;
  }

  /** Adds candidates to the frontier (each URL once, never past `limit`); robots-blocked ones are only listed. */
  async enqueue(crawlId: string, candidates: readonly CrawlCandidate[], opts: { reopen?: boolean; now?: number } = {}): Promise<{ accepted: number; robotsBlocked: number }> {
    if (candidates.length === 0 && !opts.reopen) return { accepted: 0, robotsBlocked: 0 };
    let accepted = 0;
    let robotsBlocked = 0;
    // In chunks, so one huge sitemap never blocks Redis for everyone in a single script call.
    for (let i = 0; i === 0 || i < candidates.length; i += ENQUEUE_CHUNK) {
      const args: (string | number | Buffer)[] = [opts.now ?? Date.now(), opts.reopen && i === 0 ? 'reopen' : ''];
      pushCandidates(args, candidates.slice(i, i + ENQUEUE_CHUNK));
      const { accepted: a, robotsBlocked: b } = await enqueueScript.run(this.redis, this.keys.crawl(crawlId), args);
      accepted += a;
      robotsBlocked += b;
      if (a === 0 && b === 0 && i > 0) break; // limit reached or crawl over: the rest would add nothing
    }
    return { accepted, robotsBlocked };
  }

  /**
   * Marks a one-time effect of the crawl (`started`, `ended` notifications) as done; true only for the
   * first caller, so a retried or recovered step never sends it twice.
   */
  async claimOnce(crawlId: string, effect: 'started' | 'ended'): Promise<boolean> {
    return (await this.redis.hsetnx(this.keys.crawl(crawlId)[0]!, `once:${effect}`, '1')) === 1;
  }

  /** Takes pages to start now (breadth first) within the crawl's concurrency and delay. */
  async pump(crawlId: string, opts: { maxTake?: number; now?: number } = {}): Promise<PumpResult> {
    const raw = await pumpScript.run(this.redis, this.keys.crawl(crawlId), [opts.now ?? Date.now(), opts.maxTake ?? 100]);
    return decodePump(raw, 0);
  }

  /** Records a page's outcome exactly once (a re-run after a crash gets `dup`). */
  async pageDone(crawlId: string, jobId: string, outcome: PageOutcome, now = Date.now()): Promise<PageDoneResult> {
    return pageDoneScript.run(this.redis, this.keys.crawl(crawlId), await pageDoneArgs(jobId, outcome, now));
  }

  /**
   * The end of a page in one atomic call: its links into the frontier (as {@link enqueue}), its
   * outcome recorded once (as {@link pageDone}), then the next pages taken (as {@link pump}) unless it
   * completed the crawl. Links of a page recorded before (`dup`) are not added.
   */
  async pageDoneNext(
    crawlId: string, jobId: string, outcome: PageOutcome, candidates: readonly CrawlCandidate[], opts: { maxTake?: number; now?: number } = {},
  ): Promise<PageDoneNextResult> {
    const now = opts.now ?? Date.now();
    let accepted = 0;
    let robotsBlocked = 0;
    if (candidates.length > ENQUEUE_CHUNK) {
      // A page with very many links: those go in chunks first (bounded script calls).
      if (await this.isInflight(crawlId, jobId)) ({ accepted, robotsBlocked } = await this.enqueue(crawlId, candidates, { now }));
      candidates = [];
    }
    const args: (string | number | Buffer)[] = [...(await pageDoneArgs(jobId, outcome, now)), opts.maxTake ?? 100];
    pushCandidates(args, candidates);
    const raw = await pageDoneNextScript.run(this.redis, this.keys.crawl(crawlId), args);
    return {
      result: String(raw[0]), completed: Number(raw[1]) === 1, documents: Number(raw[2]),
      accepted: accepted + Number(raw[3]), robotsBlocked: robotsBlocked + Number(raw[4]),
      pump: String(raw[5]) === '' ? null : decodePump(raw, 5),
    };
  }

  /** Seeding is over; `delayMs` replaces the crawl's delay (robots.txt Crawl-delay). True when that completed it. */
  async kickoffDone(crawlId: string, opts: { delayMs?: number; now?: number } = {}): Promise<boolean> {
    return kickoffDoneScript.run(this.redis, this.keys.crawl(crawlId), [opts.now ?? Date.now(), opts.delayMs !== undefined ? String(opts.delayMs) : '']);
  }

  /**
   * Ends a crawl still scraping as `cancelled` or `failed`. Returns the status it had (`scraping` when
   * this call ended it) and the pages that were in flight.
   */
  async end(crawlId: string, status: 'cancelled' | 'failed', opts: { error?: string; now?: number } = {}): Promise<{ previous: string; inflight: string[] }> {
    return endScript.run(this.redis, this.keys.crawl(crawlId), [opts.now ?? Date.now(), status, opts.error ?? '']);
  }

  /** Keeps the crawl's robots.txt for the workers that filter its pages ('' when it has none). */
  async setRobotsTxt(crawlId: string, text: string): Promise<void> {
    await this.redis.hset(this.keys.crawl(crawlId)[0]!, 'robotsTxt', text);
  }

  async robotsTxt(crawlId: string): Promise<string> {
    return (await this.redis.hget(this.keys.crawl(crawlId)[0]!, 'robotsTxt')) ?? '';
  }

  /** Forgets a finished crawl in the team's and the watchdog's indexes (the record itself expires). */
  async unindex(crawl: Pick<CrawlRecord, 'id' | 'teamId'>): Promise<void> {
    await this.redis.zrem(this.keys.teamCrawls(crawl.teamId), crawl.id);
    await this.redis.zrem(this.keys.crawlsRunning(), crawl.id);
  }

  /** Puts a crawl that runs again (appended batch) back in the team's and the watchdog's indexes. */
  async reindex(crawl: Pick<CrawlRecord, 'id' | 'teamId' | 'createdAt'>, now = Date.now()): Promise<void> {
    await this.redis.zadd(this.keys.crawlsRunning(), now, crawl.id);
    await this.redis.zadd(this.keys.teamCrawls(crawl.teamId), crawl.createdAt, crawl.id);
  }

  /** Counts one more recovery of an in-flight page by the watchdog; returns how many it has had. */
  async countRecovery(crawlId: string, jobId: string): Promise<number> {
    return this.redis.hincrby(this.keys.crawl(crawlId)[3]!, `r:${jobId}`, 1);
  }

  /** Whether the page is in flight, and the crawl's status: one round trip (a page's start). */
  async pageState(crawlId: string, jobId: string): Promise<{ inflight: boolean; status: CrawlStatus | null }> {
    const { inflight, status } = await pageStateScript.run(this.redis, this.keys.crawl(crawlId), [jobId]);
    return { inflight, status: status as CrawlStatus | null };
  }

  async isInflight(crawlId: string, jobId: string): Promise<boolean> {
    return (await this.redis.zscore(this.keys.crawl(crawlId)[4]!, jobId)) !== null;
  }

  /** In-flight pages with their start times (watchdog): two reads, whatever their number. */
  async inflight(crawlId: string): Promise<Array<CrawlPage & { startedAt: number }>> {
    const k = this.keys.crawl(crawlId);
    const raw = await this.redis.zrange(k[4]!, 0, -1, 'WITHSCORES');
    if (raw.length === 0) return [];
    const ids = raw.filter((_, i) => i % 2 === 0);
    const items = await this.redis.hmget(k[3]!, ...ids);
    return ids.map((jobId, i) => {
      const item = items[i];
      const parsed = item ? (JSON.parse(item) as { url: string; depth: number; hidden?: boolean }) : { url: '', depth: 0 };
      return { jobId, startedAt: Number(raw[2 * i + 1]), ...parsed };
    });
  }

  /**
   * Documents from `skip`, at most `limit` of them and about `maxBytes` of JSON (at least one).
   * `more` says whether stored documents remain after these.
   */
  async documents(crawlId: string, opts: { skip: number; limit: number; maxBytes: number }): Promise<{ docs: Document[]; more: boolean }> {
    const key = this.keys.crawl(crawlId)[5]!;
    const raw = await this.redis.lrangeBuffer(key, opts.skip, opts.skip + opts.limit);
    const docs: Document[] = [];
    let bytes = 0;
    for (let i = 0; i < raw.length && docs.length < opts.limit; i++) {
      const json = inflateRawSync(raw[i]!).toString('utf8');
      if (docs.length > 0 && bytes + json.length > opts.maxBytes) return { docs, more: true };
      bytes += json.length;
      docs.push(JSON.parse(json) as Document);
    }
    return { docs, more: raw.length > docs.length };
  }

  async errors(crawlId: string): Promise<{ errors: CrawlError[]; robotsBlocked: string[] }> {
    const k = this.keys.crawl(crawlId);
    const [errors, robots] = await Promise.all([this.redis.lrange(k[6]!, 0, -1), this.redis.lrange(k[7]!, 0, -1)]);
    return { errors: errors.map((e) => JSON.parse(e) as CrawlError), robotsBlocked: robots };
  }

  /** Ids of the team's crawls (or batches) that are still indexed as running. */
  async teamCrawlIds(teamId: string): Promise<string[]> {
    return this.redis.zrange(this.keys.teamCrawls(teamId), 0, -1);
  }

  /** Running crawls whose watchdog check is due; their next check moves `intervalMs` ahead. */
  async dueForWatch(now: number, intervalMs: number, limit = 100): Promise<string[]> {
    const ids = await this.redis.zrangebyscore(this.keys.crawlsRunning(), '-inf', now, 'LIMIT', 0, limit);
    if (ids.length > 0) await this.redis.zadd(this.keys.crawlsRunning(), 'XX', ...ids.flatMap((id) => [now + intervalMs, id]));
    return ids;
  }

  /** Announces progress to gateways streaming this crawl (WebSocket). */
  async publish(event: CrawlEvent): Promise<void> {
    await this.redis.publish(this.keys.crawlEvents(), JSON.stringify(event));
  }

  /**
   * Announces that the crawl stored a document: at once when this process sent none for it in the
   * last `documentEventMs`, else once at the end of that window (a trailing event). A stream reads
   * every document stored so far on any event, so one event stands for all the pages of its window;
   * a crawl of hundreds of pages a second sends some 20 events a second instead of one per page.
   * The crawl's `done` event is sent as before (and drains whatever is stored).
   */
  async announceDocument(crawlId: string): Promise<void> {
    const now = Date.now();
    const last = this.documentEvents.get(crawlId);
    if (last === undefined || now - last.at >= this.documentEventMs) {
      if (last === undefined && this.documentEvents.size >= DOCUMENT_EVENT_CRAWLS) this.forgetDocumentEvents(now);
      this.documentEvents.set(crawlId, { at: now, trailing: false });
      await this.publish({ crawlId, type: 'document' });
      return;
    }
    if (last.trailing) return;
    last.trailing = true;
    const timer = setTimeout(() => {
      this.documentEvents.set(crawlId, { at: Date.now(), trailing: false });
      this.publish({ crawlId, type: 'document' }).catch(() => undefined); // the next event (or `done`) makes up for it
    }, this.documentEventMs - (now - last.at));
    timer.unref();
  }

  /** Drops the entries of crawls with no recent event and nothing scheduled (bounded memory). */
  private forgetDocumentEvents(now: number): void {
    for (const [id, e] of this.documentEvents) if (!e.trailing && now - e.at >= this.documentEventMs) this.documentEvents.delete(id);
  }

  /**
   * Records an idempotency key for 24 h; returns the crawl id already recorded under it, or null
   * when the key is new (and now taken by `crawlId`).
   */
  async claimIdempotencyKey(teamId: string, key: string, crawlId: string): Promise<string | null> {
    const k = this.keys.idempotency(teamId, createHash('sha256').update(key).digest('hex'));
    const ok = await this.redis.set(k, crawlId, 'EX', 86_400, 'NX');
    return ok ? null : await this.redis.get(k);
  }

  /** Gives an idempotency key back (the request it guarded failed), if it still names `crawlId`. */
  async releaseIdempotencyKey(teamId: string, key: string, crawlId: string): Promise<void> {
    const k = this.keys.idempotency(teamId, createHash('sha256').update(key).digest('hex'));
    await releaseLockScript.run(this.redis, [k], [crawlId]);
  }
}

/** Documents are stored deflated: crawl pages are mostly text and shrink 3-6x (large ones off the event loop). */
function encodeDocument(doc: Document, json?: string): Promise<Buffer> {
  return deflateRawBuffer(Buffer.from(json ?? JSON.stringify(doc)), { level: 3 });
}

/** ARGV[1..6] of PAGE_DONE (and PAGE_DONE_NEXT). */
async function pageDoneArgs(jobId: string, outcome: PageOutcome, now: number): Promise<(string | number | Buffer)[]> {
  let payload: string | Buffer = '';
  if (outcome.kind === 'doc') payload = await encodeDocument(outcome.document, outcome.documentJson);
  else if (outcome.kind === 'error') payload = JSON.stringify(outcome.error);
  const credits = outcome.kind === 'drop' ? 0 : (outcome.creditsUsed ?? 0);
  const finalKey = outcome.kind === 'doc' ? (outcome.finalKey ?? '') : '';
  return [jobId, now, outcome.kind, payload, credits, finalKey];
}

/** ENQUEUE's groups of five arguments per candidate. */
function pushCandidates(args: (string | number | Buffer)[], candidates: readonly CrawlCandidate[]): void {
  for (const c of candidates) {
    args.push(c.key, c.url, c.depth, c.robotsBlocked ? '' : randomUUID(), c.robotsBlocked ? 'robots' : c.hidden ? 'hidden' : 'ok');
  }
}

/** A PUMP reply (state, waitUntil, then jobId and item pairs) starting at `at` in `raw`. */
function decodePump(raw: readonly (string | number)[], at: number): PumpResult {
  const pages: CrawlPage[] = [];
  for (let i = at + 2; i + 1 < raw.length; i += 2) {
    const item = String(raw[i + 1]);
    if (!item) continue;
    const { url, depth, hidden } = JSON.parse(item) as { url: string; depth: number; hidden?: boolean };
    pages.push({ jobId: String(raw[i]), url, depth, ...(hidden ? { hidden } : {}) });
  }
  return { state: String(raw[at]), waitUntil: Number(raw[at + 1]), pages };
}
