import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './listen.js';

export type FixtureHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/**
 * A local HTTP site for tests: routes by path, counts requests per path and the highest number of
 * requests in flight at once (to prove concurrency limits from the target's side).
 */
export class FixtureSite {
  private server: Server | undefined;
  private inFlight = 0;
  /** Highest number of requests in flight at the same time since start or `resetCounters()`. */
  maxInFlight = 0;
  /** Requests seen per path. */
  readonly hits = new Map<string, number>();
  private readonly routes = new Map<string, FixtureHandler>();
  port = 0;

  route(path: string, handler: FixtureHandler): this {
    this.routes.set(path, handler);
    return this;
  }

  /** A route answering static HTML (or another type) with status 200. */
  page(path: string, body: string, contentType = 'text/html; charset=utf-8'): this {
    return this.route(path, (_req, res) => {
      res.writeHead(200, { 'content-type': contentType });
      res.end(body);
    });
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  url(path: string): string {
    return this.origin + path;
  }

  resetCounters(): void {
    this.maxInFlight = 0;
    this.hits.clear();
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.port = await listenOnLoopback(this.server);
    return this;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.on('close', () => {
      this.inFlight -= 1;
    });
    const handler = this.routes.get(path);
    try {
      if (handler) await handler(req, res);
      else {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<html><head><title>Not found</title></head><body><h1>Not found</h1></body></html>');
      }
    } catch (err) {
      res.writeHead(500);
      res.end(String(err));
    }
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
