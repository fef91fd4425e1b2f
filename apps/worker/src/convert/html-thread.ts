import { parentPort } from 'node:worker_threads';
import { runHtmlPipeline } from '@trawl/html';
import type { HtmlThreadRequest } from './html-converter.js';

// Entry point of an HTML conversion thread (see ThreadedHtmlConverter).
parentPort?.on('message', (msg: { id: number; request: HtmlThreadRequest }) => {
  try {
    parentPort?.postMessage({ id: msg.id, result: runHtmlPipeline(msg.request.rawHtml, msg.request.opts) });
  } catch (err) {
    parentPort?.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
});
