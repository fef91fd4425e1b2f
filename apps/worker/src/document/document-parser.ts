import { parseDocument, type DocumentInput, type OcrEngine, type ParsedDocument } from '@trawl/documents';
import { ThreadPool, type ThreadPoolOptions } from '../convert/thread-pool.js';

/** Server-side settings of every parse (the documents role's configuration). */
export interface DocumentParserSettings {
  maxPages: number;
  maxInflatedBytes: number;
  maxCells: number;
  ocrLanguages: string[];
}

/** What one job asks of a parse. */
export interface DocumentParseRequest {
  input: DocumentInput;
  pdfMode: 'fast' | 'auto' | 'ocr';
  /** The request's `maxPages`, when it set one. */
  maxPages?: number;
  /** PDFs: each page's HTML too (`parsers[].pages`). */
  perPage?: boolean;
  /** Epoch ms. */
  deadline: number;
}

/** Parses documents for the `documents` role; the threaded form isolates hostile files. */
export interface DocumentParser {
  parse(request: DocumentParseRequest, signal: AbortSignal): Promise<ParsedDocument>;
  close(): Promise<void>;
  /** Parse threads running now, for a parser on threads. */
  threads?: () => number;
}

/** The reader options of a request under the server's settings. */
export function parseOptionsFor(request: DocumentParseRequest, settings: DocumentParserSettings, ocr: OcrEngine | undefined, signal: AbortSignal) {
  return {
    pdfMode: request.pdfMode,
    limits: {
      maxPages: Math.min(request.maxPages ?? settings.maxPages, settings.maxPages),
      maxInflatedBytes: settings.maxInflatedBytes,
      maxCells: settings.maxCells,
    },
    deadline: request.deadline,
    signal,
    ...(ocr ? { ocr } : {}),
    ocrLanguages: settings.ocrLanguages,
    ...(request.perPage === true ? { perPage: true } : {}),
  };
}

/** Parses on the calling thread (tests, the one-off CLI scrape). */
export class InlineDocumentParser implements DocumentParser {
  constructor(
    private readonly settings: DocumentParserSettings,
    private readonly ocr: OcrEngine | undefined,
  ) {}

  async parse(request: DocumentParseRequest, signal: AbortSignal): Promise<ParsedDocument> {
    signal.throwIfAborted();
    return parseDocument(request.input, parseOptionsFor(request, this.settings, this.ocr, signal));
  }

  async close(): Promise<void> {}
}

/** What a parse thread is started with (`workerData` of document-thread.ts). */
export interface DocumentThreadData {
  settings: DocumentParserSettings;
  /** Tesseract binary, or null when OCR is off. */
  tesseractPath: string | null;
  ocrConcurrency: number;
}

/**
 * Parses on a pool of threads with a heap limit each: a decompression bomb or a pathological PDF
 * costs its thread (DOCUMENT_TOO_LARGE), never the worker process, and a parse past its deadline is
 * cut off by terminating the thread. The file's bytes are moved to the thread, not copied. With
 * `idleMs`, threads start as documents arrive and end once idle that long.
 */
export class ThreadedDocumentParser implements DocumentParser {
  private readonly pool: ThreadPool<DocumentParseRequest, ParsedDocument>;

  /** `idleMs`: see {@link ThreadPoolOptions.idleMs} (unset or 0: the threads start at once and stay). */
  constructor(threadScript: URL, size: number, data: DocumentThreadData, opts: { memoryMb: number; idleMs?: ThreadPoolOptions['idleMs'] }) {
    const { memoryMb, idleMs } = opts;
    this.pool = new ThreadPool(threadScript, size, {
      label: 'Document parsing',
      // A young generation of 32 MB, not 64: a thread that had parsed the Jena mirror's three PDFs
      // held about 35 MB less, for the same CPU within noise (scratch A/B, three alternations).
      resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.min(32, Math.ceil(memoryMb / 8)) },
      crashCode: 'DOCUMENT_TOO_LARGE',
      workerData: data,
      ...(idleMs !== undefined ? { idleMs } : {}),
    });
  }

  readonly threads = (): number => this.pool.threads;

  parse(request: DocumentParseRequest, signal: AbortSignal): Promise<ParsedDocument> {
    const bytes = request.input.bytes;
    // Only a buffer that owns its whole ArrayBuffer can be moved; a slice of a pool is copied.
    const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer
      ? new Uint8Array(bytes.buffer)
      : Uint8Array.from(bytes);
    return this.pool.run({ ...request, input: { ...request.input, bytes: own } }, signal, [own.buffer as ArrayBuffer]);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
