import { isAscii, transcode } from 'node:buffer';
import { parentPort } from 'node:worker_threads';
import { runHtmlPipeline } from '@trawl/html';
import type { HtmlThreadReply, HtmlThreadRequest } from './html-converter.js';

/**
 * Valid UTF-8 as text, the way `@trawl/scrape-engine`'s `decodeValidUtf8` decodes the pages a worker
 * reads itself (the same text as TextDecoder, at about twice its speed). Not imported from there: that
 * package would load its HTTP client into every conversion thread (about 25 MB of heap).
 */
function decodeUtf8(bytes: Uint8Array): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return isAscii(buf) ? buf.toString('latin1') : transcode(buf, 'utf8', 'ucs2').toString('ucs2');
}

// Entry point of an HTML conversion thread (see ThreadedHtmlConverter).
parentPort?.on('message', (msg: { id: number; request: HtmlThreadRequest }) => {
  try {
    const { request } = msg;
    const t0 = request.timed ? performance.now() : 0;
    const rawHtml = 'rawHtml' in request ? request.rawHtml : decodeUtf8(request.utf8);
    const result = runHtmlPipeline(rawHtml, request.opts);
    const reply: HtmlThreadReply = request.timed ? { result, ms: performance.now() - t0 } : { result };
    parentPort?.postMessage({ id: msg.id, result: reply });
  } catch (err) {
    parentPort?.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
});
