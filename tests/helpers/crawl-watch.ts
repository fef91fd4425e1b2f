import WebSocket from 'ws';
import type { TestCluster } from './cluster.js';
import { BOOT_KEY } from './cluster.js';

/** Everything a crawl status stream said until it closed. */
export interface StreamLog {
  messages: { type: string; data?: any; error?: string }[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- arbitrary documents
  documents: Record<string, any>[]; // eslint-disable-line @typescript-eslint/no-explicit-any -- arbitrary documents
  final: { status: string; total: number; completed: number } | undefined;
}

/**
 * Opens the WebSocket status stream of a crawl or batch (API key as the subprotocol, as the SDK does)
 * and resolves when the server closes it after the final message: tests wait on the stream, not on
 * sleeps.
 */
export function watchCrawl(cluster: TestCluster, id: string, opts: { kind?: 'crawl' | 'batch'; key?: string; timeoutMs?: number } = {}): Promise<StreamLog> {
  const path = opts.kind === 'batch' ? `/v2/batch/scrape/${id}` : `/v2/crawl/${id}`;
  const ws = new WebSocket(cluster.api.url.replace(/^http/, 'ws') + path, opts.key ?? BOOT_KEY);
  const log: StreamLog = { messages: [], documents: [], final: undefined };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      ws.terminate();
      reject(new Error(`crawl ${id} stream did not finish; last: ${JSON.stringify(log.messages.at(-1))?.slice(0, 300)}`));
    }, opts.timeoutMs ?? 60_000);
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw));
      log.messages.push(msg);
      if (msg.type === 'catchup') log.documents.push(...(msg.data.data ?? []));
      if (msg.type === 'document') log.documents.push(msg.data);
      if (msg.type === 'done' || msg.type === 'status' || (msg.type === 'error' && msg.data)) log.final = msg.data;
    });
    ws.on('close', () => {
      clearTimeout(timer);
      resolve(log);
    });
    ws.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Every document of a finished crawl through the status endpoint, following `next`. */
export async function allDocuments(cluster: TestCluster, id: string, kind: 'crawl' | 'batch' = 'crawl', key?: string) {
  const first = await cluster.call('GET', kind === 'batch' ? `/v2/batch/scrape/${id}` : `/v2/crawl/${id}`, key ? { key } : {});
  const docs = [...first.body.data];
  let next: string | undefined = first.body.next;
  const pages = [first.body];
  while (next) {
    const page = await cluster.call('GET', next.slice(cluster.api.url.length), key ? { key } : {});
    pages.push(page.body);
    docs.push(...page.body.data);
    next = page.body.next;
  }
  return { status: first.body, docs, pages };
}

/** The path of a crawled document's source URL. */
export function pathOf(doc: Record<string, any>): string { // eslint-disable-line @typescript-eslint/no-explicit-any -- arbitrary documents
  const u = new URL(doc.metadata.sourceURL);
  return u.pathname + u.search;
}
