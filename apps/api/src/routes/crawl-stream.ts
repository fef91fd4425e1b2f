import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Redis } from 'ioredis';
import { WebSocketServer, type WebSocket } from 'ws';
import { jobIdSchema, v1Document, type Document } from '@trawl/api-schema';
import type { Logger } from '@trawl/observability';
import { crawlExpiresAt, type CrawlEvent, type CrawlKind, type CrawlStore, type RedisKeys, type Team, type TeamStore } from '@trawl/queue';
import type { CrawlService } from '../services/crawl.service.js';

/** Documents sent per read while streaming (each becomes one `document` message). */
const READ_CHUNK = 100;

/**
 * Fans the crawl events channel out to local listeners: one Redis subscription per gateway process,
 * whatever the number of open streams.
 */
export class CrawlEventHub {
  private readonly listeners = new Map<string, Set<() => void>>();

  constructor(
    private readonly subscriber: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async start(): Promise<void> {
    this.subscriber.on('message', (_channel: string, message: string) => {
      let event: CrawlEvent;
      try {
        event = JSON.parse(message) as CrawlEvent;
      } catch {
        return;
      }
      for (const fn of this.listeners.get(event.crawlId) ?? []) fn();
    });
    // Events published while the subscription was away (a reconnection, a Sentinel failover) are
    // lost: every open stream reads its crawl again.
    this.subscriber.on('ready', () => {
      for (const set of this.listeners.values()) for (const fn of set) fn();
    });
    await this.subscriber.subscribe(this.keys.crawlEvents());
  }

  /** Calls `fn` on every event of the crawl until the returned function is called. */
  listen(crawlId: string, fn: () => void): () => void {
    let set = this.listeners.get(crawlId);
    if (!set) this.listeners.set(crawlId, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0) this.listeners.delete(crawlId);
    };
  }

  close(): void {
    this.listeners.clear();
    this.subscriber.disconnect();
  }
}

export interface CrawlStreamDeps {
  teams: TeamStore;
  crawls: CrawlService;
  store: CrawlStore;
  hub: CrawlEventHub;
  logger: Logger;
}

function reject(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** The API key of a WebSocket request: the `Sec-WebSocket-Protocol` value (SDKs), or a Bearer header. */
function apiKeyOf(req: IncomingMessage): string | undefined {
  const proto = req.headers['sec-websocket-protocol'];
  if (typeof proto === 'string' && proto.trim()) return proto.split(',')[0]!.trim();
  const auth = req.headers.authorization;
  return auth?.startsWith('Bearer ') ? auth.slice(7).trim() : undefined;
}

/**
 * WebSocket status stream of a crawl or batch (`GET /v2/crawl/:id` and `/v2/batch/scrape/:id` with
 * Upgrade; `/v1/crawl/:id` for either, with v1 documents): a `catchup` with the status and the
 * documents so far, a `document` message per new page, then `done` (completed), `error` (failed) or a final `status` message (cancelled), and the socket closes.
 * Driven by the crawl events channel; nothing polls.
 */
export function attachCrawlStream(server: Server, deps: CrawlStreamDeps): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    void (async () => {
      const m = /^\/(v1|v2)\/(crawl|batch\/scrape)\/([^/?#]+)\/?(?:\?.*)?$/.exec(req.url ?? '');
      if (!m || (m[1] === 'v1' && m[2] !== 'crawl')) return reject(socket, 404, 'Not Found');
      const version = m[1] === 'v1' ? 'v1' : 'v2';
      let raw: string;
      try {
        raw = decodeURIComponent(m[3]!);
      } catch {
        return reject(socket, 400, 'Bad Request');
      }
      const id = jobIdSchema.safeParse(raw);
      if (!id.success) return reject(socket, 400, 'Bad Request');
      const key = apiKeyOf(req);
      const team = key ? await deps.teams.resolveKey(key) : null;
      if (!team) return reject(socket, 401, 'Unauthorized');
      if (team.disabled) return reject(socket, 403, 'Forbidden');
      // v1 has one stream path for both: the 1.x SDK watches a batch scrape at /v1/crawl/:id too.
      const kinds: CrawlKind[] = version === 'v1' ? ['crawl', 'batch'] : [m[2] === 'crawl' ? 'crawl' : 'batch'];
      let kind: CrawlKind | undefined;
      for (const k of kinds) {
        if (await deps.crawls.find(team, id.data, k).then(() => true, () => false)) {
          kind = k;
          break;
        }
      }
      if (kind === undefined) return reject(socket, 404, 'Not Found');
      const toClient: ToClient = version === 'v1' ? (doc) => v1Document(doc) : (doc) => doc;
      wss.handleUpgrade(req, socket, head, (ws) => void stream(ws, id.data, team, kind, toClient, deps, version));
    })().catch((err: unknown) => {
      deps.logger.warn({ err }, 'crawl stream upgrade failed');
      reject(socket, 500, 'Internal Server Error');
    });
  });
  return wss;
}

/** Sends one message and resolves once the socket has taken it (rejects when the socket is gone). */
function send(ws: WebSocket, message: unknown): Promise<void> {
  return new Promise((resolve, reject) => ws.send(JSON.stringify(message), (err) => (err ? reject(err) : resolve())));
}

/** A stored document as the stream's client reads it (v1 documents on the v1 path). */
type ToClient = (doc: Document) => unknown;

/** The state sent with the last message. */
interface FinalSnapshot {
  status: string;
  total: number;
  completed: number;
  creditsUsed: number;
}

/** Longest WebSocket close reason, bytes (RFC 6455: a 125-byte control payload minus the code). */
const MAX_CLOSE_REASON_BYTES = 123;

/**
 * The v1 stream's end, as the 1.x SDK's CrawlWatcher reads it: the terminal message is the close
 * reason (`{"type":"done"}`, or `{"type":"error","error":...}` for a failed or cancelled crawl), not
 * a message; the watcher parses every close reason, and has no terminal event for a cancelled crawl
 * other than `error`.
 */
function v1CloseReason(snapshot: FinalSnapshot, error: string | undefined): string {
  if (snapshot.status === 'completed') return JSON.stringify({ type: 'done' });
  let text = snapshot.status === 'cancelled' ? 'Crawl was cancelled' : (error ?? 'The crawl failed');
  // Shortened until it fits (JSON.stringify escapes a lone surrogate a cut may leave: still valid JSON).
  while (Buffer.byteLength(JSON.stringify({ type: 'error', error: text })) > MAX_CLOSE_REASON_BYTES) text = text.slice(0, -1);
  return JSON.stringify({ type: 'error', error: text });
}

async function stream(ws: WebSocket, crawlId: string, team: Team, kind: CrawlKind, toClient: ToClient, deps: CrawlStreamDeps, version: 'v1' | 'v2'): Promise<void> {
  let sent = 0;
  // Busy until the catch-up is sent: events meanwhile only mark `again`, and are handled right after.
  let busy = true;
  let again = false;
  let finished = false;
  const finish = (reason?: string) => {
    finished = true;
    stop();
    ws.close(1000, reason);
  };
  const pushNew = async (): Promise<void> => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        // Status first: a crawl that has ended has all its documents stored already (the same script
        // records the last page and ends it), so draining after this read misses none.
        const record = await deps.store.get(crawlId);
        for (;;) {
          const { docs } = await deps.store.documents(crawlId, { skip: sent, limit: READ_CHUNK, maxBytes: Number.MAX_SAFE_INTEGER });
          // One at a time, each waiting for the socket to take it: a slow reader never makes this
          // process buffer a whole crawl.
          for (const doc of docs) await send(ws, { type: 'document', data: toClient(doc) });
          sent += docs.length;
          if (docs.length < READ_CHUNK) break;
        }
        if (!record || record.status !== 'scraping') {
          const snapshot: FinalSnapshot = record
            ? { status: record.status, total: record.total, completed: record.completed, creditsUsed: record.creditsUsed }
            : { status: 'failed', total: 0, completed: 0, creditsUsed: 0 };
          if (version === 'v1') {
            finish(v1CloseReason(snapshot, record?.error));
            return;
          }
          // `done` for a completed crawl; `error` for a failed one (as clients expect); a cancelled one
          // ends with its status snapshot (the SDK ends its watcher on any terminal status).
          await send(ws, snapshot.status === 'completed'
            ? { type: 'done', data: snapshot }
            : snapshot.status === 'failed'
              ? { type: 'error', error: record?.error ?? 'The crawl failed', data: snapshot }
              : { type: 'status', data: snapshot });
          finish();
          return;
        }
      } while (again && !finished);
    } finally {
      busy = false;
    }
  };
  // Listen before reading, so no event between the catch-up and the subscription is lost.
  const stop = deps.hub.listen(crawlId, () => void pushNew().catch(() => {
    stop();
    ws.terminate();
  }));
  ws.on('close', () => stop());
  ws.on('error', () => stop());
  try {
    const page = await deps.crawls.status(team, crawlId, kind, { skip: 0, limit: 100 });
    const r = page.record;
    await send(ws, {
      type: 'catchup',
      data: {
        // The final status comes in the last message, after every document: a client that stops at
        // a terminal status in the catch-up would miss documents past its first 100.
        status: 'scraping', total: r.total, completed: r.completed, creditsUsed: r.creditsUsed,
        expiresAt: crawlExpiresAt(r).toISOString(), data: page.data.map(toClient),
      },
    });
    sent = page.data.length;
    busy = false;
    await pushNew();
  } catch (err) {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'error', error: (err as Error).message }));
    finish();
  }
}
