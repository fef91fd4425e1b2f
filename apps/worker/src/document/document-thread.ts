import { parentPort, workerData } from 'node:worker_threads';
import { TrawlError } from '@trawl/api-schema';
import { TesseractOcrEngine, parseDocument, type OcrEngine } from '@trawl/documents';
import { parseOptionsFor, type DocumentParseRequest, type DocumentThreadData } from './document-parser.js';

// Entry point of a document parse thread (see ThreadedDocumentParser). One parse at a time.
const data = workerData as DocumentThreadData;
const ocr: OcrEngine | undefined = data.tesseractPath
  ? new TesseractOcrEngine({ binary: data.tesseractPath, maxProcesses: data.ocrConcurrency })
  : undefined;

parentPort?.on('message', (msg: { id: number; request: DocumentParseRequest }) => {
  // The thread's own deadline stops OCR processes before the pool terminates the thread.
  const signal = AbortSignal.timeout(Math.max(1, msg.request.deadline - Date.now()));
  parseDocument(msg.request.input, parseOptionsFor(msg.request, data.settings, ocr, signal)).then(
    (result) => parentPort?.postMessage({ id: msg.id, result }),
    (err: unknown) => parentPort?.postMessage({ id: msg.id, error: TrawlError.from(err).toData() }),
  );
});
