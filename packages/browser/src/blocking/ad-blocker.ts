import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { FiltersEngine, Request, type RequestType } from '@ghostery/adblocker';
import type { BlockQuery, BlockResourceType, RequestBlocker } from '../request-interception.js';

/**
 * TrackerDB categories whose filters are enforced. Only requests that exist to serve ads or to measure
 * the visitor are blocked: removing them never removes page content.
 * - `advertising`, `pornvertising`: ad servers, ad exchanges, ad tags.
 * - `site_analytics`: analytics beacons and their loaders.
 * Left alone on purpose: `hosting` / `cdn` / `essential` (they serve the page itself: cdn.shopify.com
 * product images), `audio_video_player` and `social_media` (embedded videos and posts are content),
 * `customer_interaction` (reviews and Q&A widgets are content), `consent` (blocking the CMP script
 * can leave a site waiting for consent forever; cookie-consent.ts dismisses the pop-up instead),
 * `utilities` (tag managers and captchas some sites need to render), `misc`, `extensions`.
 */
export const BLOCKED_TRACKER_CATEGORIES: readonly string[] = ['advertising', 'pornvertising', 'site_analytics'];

/** Numbers measured while building the engine (logged once at start-up). */
export interface AdBlockerStats {
  /** Network filters kept from the TrackerDB list. */
  filters: number;
  /** Time spent selecting and compiling the filters, ms (reading the file included by `load`). */
  loadMs: number;
}

/**
 * Blocks ad and tracker requests of a page with the network filters of Ghostery's
 * TrackerDB (`@ghostery/trackerdb`), matched by Ghostery's adblocker engine. Built once per process
 * (compiling the list takes tens of ms); `shouldBlock` then costs microseconds per request. A page's
 * requests reach it through `interceptRequests` (request-interception.ts), as the `adblock` plugin's
 * request blocker.
 */
export class AdBlocker implements RequestBlocker {
  private constructor(
    private readonly engine: FiltersEngine,
    readonly stats: AdBlockerStats,
    /** Matches every URL a filter could block (see {@link candidatePattern}); the engine judges no other. */
    private readonly candidates: RegExp | undefined,
  ) {}

  /** Reads the TrackerDB list shipped in `@ghostery/trackerdb` and compiles it. */
  static async load(): Promise<AdBlocker> {
    const started = performance.now();
    const text = await readFile(trackerDbListPath(), 'utf8');
    return AdBlocker.compile(text, started);
  }

  /**
   * Compiles a list in TrackerDB's `trackerdb.txt` format: each filter follows a comment
   * `! trackerdb_id:<id> trackerdb_category:<category> trackerdb_filter|trackerdb_domain`.
   */
  static fromTrackerDbList(text: string): AdBlocker {
    return AdBlocker.compile(text, performance.now());
  }

  /**
   * Compiles a plain ABP-syntax list (EasyList, EasyPrivacy...: `TRAWL_BLOCKLIST_PATH`), network filters
   * only, for deployments that prefer such a list to the bundled TrackerDB one.
   */
  static fromFilterList(text: string): AdBlocker {
    const started = performance.now();
    const filters = text.split(/\r?\n/).filter((line) => line && !line.startsWith('!') && !line.startsWith('[') && !line.includes('##') && !line.includes('#@#'));
    return AdBlocker.build(filters, started);
  }

  private static compile(text: string, started: number): AdBlocker {
    return AdBlocker.build(selectTrackerFilters(text, BLOCKED_TRACKER_CATEGORIES), started);
  }

  private static build(filters: string[], started: number): AdBlocker {
    const engine = FiltersEngine.parse(filters.join('\n'), {
      loadNetworkFilters: true,
      loadCosmeticFilters: false,
      loadCSPFilters: false,
      loadPreprocessors: false,
      enableHtmlFiltering: false,
    });
    return new AdBlocker(engine, { filters: filters.length, loadMs: performance.now() - started }, candidatePattern(filters));
  }

  /**
   * True when the URL may be blocked: it contains a literal part of some filter. Every URL
   * {@link shouldBlock} blocks is a candidate; most of a page's requests are not, and go on unjudged.
   */
  isCandidate(url: string): boolean {
    return this.candidates ? this.candidates.test(url) : true;
  }

  /** True when the request is an ad or tracker request. Pure: no I/O, no state. */
  shouldBlock(query: BlockQuery): boolean {
    // The page the user asked for is never blocked, even on an ad domain or behind an ad redirect.
    if (query.resourceType === 'document') return false;
    if (!/^(https?|wss?):/i.test(query.url)) return false;
    const request = Request.fromRawDetails({
      url: query.url,
      sourceUrl: query.sourceUrl,
      type: toEngineType(query.resourceType),
    });
    return this.engine.match(request).match;
  }
}

/** Shortest literal worth matching on: shorter ones would make nearly every URL a candidate. */
const MIN_LITERAL = 3;

/**
 * A regular expression (case-insensitive) matching every URL any of the network `filters` could
 * match: for each filter, its longest literal part (the host of `||host^`, `matomo.js` of
 * `/matomo.js`), or a regex filter's own expression. A filter's options (`$3p`, `$domain=`) only
 * narrow what it matches, so they are ignored; exceptions (`@@`) only unblock. Undefined when some
 * filter has no usable literal: every request then goes to the handler.
 */
export function candidatePattern(filters: readonly string[]): RegExp | undefined {
  const parts = new Set<string>();
  for (const filter of filters) {
    if (filter.startsWith('@@')) continue;
    const regex = /^\/(.+)\/(?:\$[^/]*)?$/.exec(filter);
    if (regex?.[1]) {
      try {
        new RegExp(regex[1], 'i');
      } catch {
        return undefined;
      }
      parts.add(`(?:${regex[1]})`);
      continue;
    }
    const dollar = filter.lastIndexOf('$');
    const body = dollar >= 0 ? filter.slice(0, dollar) : filter;
    const literal = body.split(/[\^*|]/).reduce((a, b) => (b.length > a.length ? b : a), '');
    if (literal.length < MIN_LITERAL) return undefined;
    parts.add(literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
  }
  return parts.size ? new RegExp([...parts].join('|'), 'i') : undefined;
}

/**
 * Keeps the filters of the given categories that TrackerDB marks `trackerdb_filter`.
 * `trackerdb_domain` entries are skipped: they attribute whole domains to an organisation (google.com,
 * shopify.com, auth0.com ...) for statistics, and enforcing them would block content served from
 * those domains (cdn.shopify.com images). Cosmetic (`##`) filters are skipped: only requests are blocked.
 */
export function selectTrackerFilters(text: string, categories: readonly string[]): string[] {
  const wanted = new Set(categories);
  const lines = text.split('\n');
  const filters: string[] = [];
  for (let i = 0; i < lines.length - 1; i += 1) {
    const match = /^!.*\btrackerdb_category:(\S+)\s+trackerdb_filter\b/.exec(lines[i] ?? '');
    if (!match?.[1] || !wanted.has(match[1])) continue;
    const filter = (lines[i + 1] ?? '').trim();
    if (filter === '' || filter.startsWith('!') || /#[@?$]?#/.test(filter)) continue;
    filters.push(filter);
  }
  return filters;
}

/** Playwright's names are the engine's, except frames (the engine's `document` is the top frame). */
function toEngineType(type: BlockResourceType): RequestType {
  if (type === 'document') return 'main_frame';
  if (type === 'subdocument') return 'sub_frame';
  return type;
}

/**
 * `@ghostery/trackerdb` exports only its JS entry, so the list is found next to it
 * (`dist/cjs/index.js` -> `dist/trackerdb.txt`).
 */
function trackerDbListPath(): string {
  const entry = createRequire(import.meta.url).resolve('@ghostery/trackerdb');
  return join(dirname(entry), '..', 'trackerdb.txt');
}
