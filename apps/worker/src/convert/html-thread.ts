import { parentPort } from 'node:worker_threads';
import { runHtmlPipeline } from '@trawl/html';
import type { HtmlThreadReply, HtmlThreadRequest } from './html-converter.js';

// Entry point of an HTML conversion thread (see ThreadedHtmlConverter).
parentPort?.on('message', (msg: { id: number; request: HtmlThreadRequest }) => {
  try {
    const t0 = msg.request.timed ? performance.now() : 0;
    const result = runHtmlPipeline(msg.request.rawHtml, msg.request.opts);
    const reply: HtmlThreadReply = msg.request.timed ? { result, ms: performance.now() - t0 } : { result };
    parentPort?.postMessage({ id: msg.id, result: reply });
  } catch (err) {
    parentPort?.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
});
