import { parentPort } from 'node:worker_threads';
import { runHtmlPipeline, type HtmlPipelineOptions } from '@trawl/html';

// Entry point of an HTML conversion thread (see ThreadedHtmlConverter).
parentPort?.on('message', (msg: { id: number; rawHtml: string; opts: HtmlPipelineOptions }) => {
  try {
    parentPort?.postMessage({ id: msg.id, result: runHtmlPipeline(msg.rawHtml, msg.opts) });
  } catch (err) {
    parentPort?.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
});
