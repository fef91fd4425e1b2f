import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { listenOnLoopback } from './listen.js';
import { resolveSiteOptions, SiteGraph, type GeneratedSiteOptions } from './site-graph.js';
import { renderPage, renderRobots, renderSitemapIndex, renderUrlset } from './site-pages.js';

/** Options of {@link GeneratedSite.reachable}. */
export interface ReachableOptions {
  /** Keep pages at most this many link hops from "/" (depth of "/" is 0). Default: no limit. */
  maxDepth?: number;
  /** Keep only paths starting with this prefix (a filter on the result; traversal still starts at "/"). */
  under?: string;
  /** Include pages that robots.txt disallows, and what is only reachable through them. Default false. */
  ignoreRobots?: boolean;
}

/** One content page answered with 200, in serving order. */
export interface ServedPage {
  /** Path without query. */
  path: string;
  /** `performance.now()` when the response was fully written. */
  at: number;
}

/**
 * A deterministic loopback web site with a known link graph, for crawl and map tests and benchmarks.
 * See {@link GeneratedSiteOptions} for what it contains and {@link SiteGraph} for the tree layout; the
 * answers of `reachable()` and `depthOf()` are computed from the same graph the server renders.
 */
export class GeneratedSite {
  /** Requests seen per exact path + query, since start or `resetCounters()`. */
  readonly hits = new Map<string, number>();
  /** Content pages answered with 200, in order, since start or `resetCounters()`. */
  readonly served: ServedPage[] = [];
  /** Highest number of requests in flight at the same time since start or `resetCounters()`. */
  maxInFlight = 0;
  readonly options: GeneratedSiteOptions;
  private readonly graph: SiteGraph;
  private readonly pageCache = new Map<string, Buffer>();
  private readonly depthCache = new Map<boolean, Map<string, number>>();
  private requests = 0;
  private inFlight = 0;
  /** Delay of every answer, ms: the `latencyMs` option until {@link setLatency}. */
  private latencyMs: number;
  private server: Server | undefined;
  private port = 0;

  private constructor(opts: Partial<GeneratedSiteOptions>) {
    this.options = resolveSiteOptions(opts);
    this.graph = new SiteGraph(this.options);
    this.latencyMs = this.options.latencyMs;
  }

  /** Delays every answer from now on by `ms` (requests already waiting keep their delay). */
  setLatency(ms: number): void {
    this.latencyMs = ms;
  }

  /** Starts a site on 127.0.0.1 on a free port. */
  static async start(opts: Partial<GeneratedSiteOptions> = {}): Promise<GeneratedSite> {
    const site = new GeneratedSite(opts);
    site.server = createServer((req, res) => void site.handle(req, res));
    site.port = await listenOnLoopback(site.server);
    return site;
  }

  /** `http://127.0.0.1:<port>`. */
  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  url(path: string): string {
    return this.origin + path;
  }

  /**
   * Paths of pages reachable from "/" by links, canonical (no query variants, redirects followed), in
   * breadth-first order. By default what a robots.txt-respecting crawler can reach; private pages count
   * when robots.txt does not disallow them.
   */
  reachable(opts: ReachableOptions = {}): string[] {
    if (!opts.ignoreRobots && this.graph.isDisallowed('/')) return [];
    const out: string[] = [];
    for (const [path, depth] of this.depths(!opts.ignoreRobots)) {
      if (opts.maxDepth !== undefined && depth > opts.maxDepth) continue;
      if (opts.under !== undefined && !path.startsWith(opts.under)) continue;
      out.push(path);
    }
    return out;
  }

  /** Link hops from "/" to a page (robots.txt not considered), or -1 when no link leads there. */
  depthOf(path: string): number {
    return this.depths(false).get(path) ?? -1;
  }

  /** The graph never changes, so each breadth-first walk is done once. */
  private depths(politely: boolean): Map<string, number> {
    let depths = this.depthCache.get(politely);
    if (!depths) {
      depths = this.graph.depths({ politely });
      this.depthCache.set(politely, depths);
    }
    return depths;
  }

  /** Every path answering 200 with an HTML page: "/", "/about", `/p/*`, `/private/*`, `/hidden/*`. */
  allContentPaths(): string[] {
    return this.graph.allPagePaths();
  }

  /** Paths the sitemap lists (empty with `sitemap: 'none'`). */
  sitemapPaths(): string[] {
    return this.graph.sitemapPaths();
  }

  totalRequests(): number {
    return this.requests;
  }

  resetCounters(): void {
    this.hits.clear();
    this.served.length = 0;
    this.requests = 0;
    this.maxInFlight = 0;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    this.requests += 1;
    this.hits.set(target, (this.hits.get(target) ?? 0) + 1);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.on('close', () => {
      this.inFlight -= 1;
    });
    if (this.latencyMs > 0) await delay(this.latencyMs);
    if (res.destroyed) return;
    const path = target.split(/[?#]/)[0] ?? '/';
    const route = this.graph.route(path);
    switch (route.kind) {
      case 'page':
        res.on('finish', () => this.served.push({ path, at: performance.now() }));
        return this.send(req, res, 200, 'text/html; charset=utf-8', this.page(path));
      case 'redirect':
        res.writeHead(301, { location: route.location, 'content-length': 0 });
        res.end();
        return;
      case 'robots':
        return this.send(req, res, 200, 'text/plain; charset=utf-8', Buffer.from(renderRobots(this.graph, this.origin)));
      case 'sitemap': {
        const xml = this.options.sitemap === 'index-gz' ? renderSitemapIndex(this.origin) : renderUrlset(this.graph, this.origin);
        return this.send(req, res, 200, 'application/xml; charset=utf-8', Buffer.from(xml));
      }
      case 'sitemap-gz':
        return this.send(req, res, 200, 'application/gzip', gzipSync(renderUrlset(this.graph, this.origin)));
      case 'missing': {
        const body = '<!doctype html><html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>';
        return this.send(req, res, 404, 'text/html; charset=utf-8', Buffer.from(body));
      }
    }
  }

  private page(path: string): Buffer {
    let body = this.pageCache.get(path);
    if (!body) {
      body = Buffer.from(renderPage(this.graph, path));
      this.pageCache.set(path, body);
    }
    return body;
  }

  private send(req: IncomingMessage, res: ServerResponse, status: number, contentType: string, body: Buffer): void {
    res.writeHead(status, { 'content-type': contentType, 'content-length': body.length });
    res.end(req.method === 'HEAD' ? undefined : body);
  }
}
