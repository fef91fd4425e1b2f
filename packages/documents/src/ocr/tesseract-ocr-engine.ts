import { availableParallelism } from 'node:os';
import { TrawlError } from '@trawl/api-schema';
import type { OcrEngine, PageText } from '../types.js';
import { checkImage, DEFAULT_MAX_IMAGE_PIXELS } from './image-header.js';
import { parseTesseractTsv } from './parse-tesseract-tsv.js';
import { runProcess, type ProcessResult } from './run-process.js';
import { Semaphore } from './semaphore.js';

/** Options of {@link TesseractOcrEngine}; every one has a default. */
export interface TesseractOcrEngineOptions {
  /**
   * The tesseract executable: a path, or a name looked up in `env.PATH` (in `/usr/bin:/bin` when `env`
   * has no PATH). Default `tesseract`.
   */
  binary?: string;
  /**
   * Environment of the tesseract processes (for example `PATH`, `TESSDATA_PREFIX`). Nothing of the
   * worker's own environment is passed on. `OMP_THREAD_LIMIT` and `LC_ALL=C` are always set. Default empty.
   */
  env?: Record<string, string>;
  /** Folder of the `*.traineddata` files (`--tessdata-dir`). Default: tesseract's own (or `TESSDATA_PREFIX`). */
  tessdataDir?: string;
  /** Tesseract processes run at once by this engine; further calls wait. Default: the number of CPUs. */
  maxProcesses?: number;
  /** Longest one recognition may run, in ms, from the process start (the wait for a slot is not counted). Default 120000. */
  timeoutMs?: number;
  /**
   * Page segmentation mode (`--psm`). Default 3: automatic layout analysis without orientation
   * detection. 1 adds orientation and script detection (needs `osd`): it reads rotated scans, at
   * 1.5 to 2 times the time of a page.
   */
  psm?: number;
  /** OCR engine mode (`--oem`). Default 1: the LSTM engine, the only one in Debian's and the "fast" language data. */
  oem?: number;
  /**
   * OpenMP threads per process (`OMP_THREAD_LIMIT`). Default 1: parallelism comes from running several
   * processes. Measured on 2 cores, OpenMP's own default made a page 5 times slower, not faster.
   */
  threadsPerProcess?: number;
  /** Images with more pixels are refused with DOCUMENT_TOO_LARGE before tesseract sees them. Default 100 million. */
  maxPixels?: number;
  /** Cap on tesseract's TSV output, in bytes. Default 16 MiB (a dense 100-megapixel page writes about 2 MiB). */
  maxOutputBytes?: number;
  /** Words recognized with a lower confidence (0..100) are dropped. Default 0: all are kept. */
  minConfidence?: number;
}

const LANGUAGE_NAME = /^[A-Za-z0-9_]+(?:\/[A-Za-z0-9_]+)?$/;
const LIST_LANGUAGES_TIMEOUT_MS = 15_000;

/**
 * OCR with the tesseract command (4.x or 5.x): one short-lived process per image, reading the image
 * from stdin and writing TSV to stdout, so no temporary file exists and a crash costs one page.
 *
 * Tesseract treats input it does not recognize as an image as a list of file names (and URLs, when
 * built with libcurl) to read instead. Every image is therefore checked by magic bytes and header
 * first ({@link checkImage}): only bytes that start like an image leptonica decodes ever reach it.
 */
export class TesseractOcrEngine implements OcrEngine {
  private readonly binary: string;
  private readonly tessdataArgs: string[];
  private readonly timeoutMs: number;
  private readonly psm: number;
  private readonly oem: number;
  private readonly maxPixels: number;
  private readonly maxOutputBytes: number;
  private readonly minConfidence: number;
  private readonly env: Record<string, string>;
  private readonly slots: Semaphore;
  private installed: Promise<string[]> | undefined;

  constructor(opts: TesseractOcrEngineOptions = {}) {
    this.binary = opts.binary ?? 'tesseract';
    this.tessdataArgs = opts.tessdataDir === undefined ? [] : ['--tessdata-dir', opts.tessdataDir];
    this.timeoutMs = opts.timeoutMs ?? 120_000;
    this.psm = opts.psm ?? 3;
    this.oem = opts.oem ?? 1;
    this.maxPixels = opts.maxPixels ?? DEFAULT_MAX_IMAGE_PIXELS;
    this.maxOutputBytes = opts.maxOutputBytes ?? 16 * 1024 * 1024;
    this.minConfidence = opts.minConfidence ?? 0;
    this.slots = new Semaphore(opts.maxProcesses ?? availableParallelism());
    // A minimal environment: the child needs no secret the worker holds. LC_ALL=C keeps number
    // parsing independent of the host's locale (tesseract 4.0 aborted under a non-C numeric locale).
    this.env = { ...opts.env, LC_ALL: 'C', OMP_THREAD_LIMIT: String(opts.threadsPerProcess ?? 1) };
  }

  /** Processes running now and calls waiting for one (for metrics and tests). */
  get load(): { running: number; waiting: number } {
    return { running: this.slots.active, waiting: this.slots.waiting };
  }

  /**
   * Installed languages (`tesseract --list-langs`), without `osd` (orientation data, not a language).
   * Read once and cached; a failed read is retried on the next call. Throws DOCUMENT_OCR_UNAVAILABLE
   * when tesseract cannot be run.
   */
  languages(): Promise<string[]> {
    this.installed ??= this.listLanguages().catch((err: unknown) => {
      this.installed = undefined;
      throw err;
    });
    return this.installed;
  }

  /**
   * Recognizes one image (PNG, JPEG, GIF, TIFF (first frame), WebP or BMP). Throws DOCUMENT_CORRUPT
   * for an unreadable image, DOCUMENT_TOO_LARGE above `maxPixels`, DOCUMENT_OCR_UNAVAILABLE for a
   * missing binary or language (`details.missingLanguages`), and the signal's error (SCRAPE_TIMEOUT,
   * JOB_CANCELLED or the TrawlError it carries) or SCRAPE_TIMEOUT after `timeoutMs`, once the process is killed.
   */
  async recognize(image: Uint8Array, opts: { languages: string[]; signal: AbortSignal; pageNumber?: number }): Promise<PageText> {
    const header = checkImage(image, this.maxPixels);
    const languages = await this.usableLanguages(opts.languages);
    const release = await this.slots.acquire(opts.signal);
    const cap = new AbortController();
    const timer = setTimeout(() => {
      cap.abort(new TrawlError('SCRAPE_TIMEOUT', `OCR of one image took longer than ${this.timeoutMs} ms.`, { details: { timeoutMs: this.timeoutMs } }));
    }, this.timeoutMs);
    try {
      const result = await this.run(
        ['stdin', 'stdout', ...this.tessdataArgs, '-l', languages.join('+'), '--psm', String(this.psm), '--oem', String(this.oem),
          // Multi-page TIFF: the first page only (0-based).
          '-c', 'tessedit_page_number=0', 'tsv'],
        AbortSignal.any([opts.signal, cap.signal]),
        image,
      );
      if (result.exitCode !== 0) throw recognitionFailure(result, header.type);
      return parseTesseractTsv(result.stdout.toString('utf8'), {
        pageNumber: opts.pageNumber ?? 1,
        minConfidence: this.minConfidence,
        fallbackSize: header,
      });
    } finally {
      clearTimeout(timer);
      release();
    }
  }

  /** The requested languages (`eng` when none), after checking each is installed. */
  private async usableLanguages(requested: string[]): Promise<string[]> {
    const wanted = requested.length > 0 ? [...new Set(requested)] : ['eng'];
    const installed = new Set(await this.languages());
    const missingLanguages = wanted.filter((l) => !LANGUAGE_NAME.test(l) || !installed.has(l));
    if (missingLanguages.length > 0) {
      throw new TrawlError('DOCUMENT_OCR_UNAVAILABLE', `OCR language data is not installed: ${missingLanguages.join(', ')}.`, {
        details: { missingLanguages, installedLanguages: [...installed] },
      });
    }
    return wanted;
  }

  private async listLanguages(): Promise<string[]> {
    const result = await this.run([...this.tessdataArgs, '--list-langs'], AbortSignal.timeout(LIST_LANGUAGES_TIMEOUT_MS));
    if (result.exitCode !== 0) {
      throw new TrawlError('DOCUMENT_OCR_UNAVAILABLE', 'tesseract could not list its languages.', {
        details: { reason: 'listLanguagesFailed', exitCode: result.exitCode },
        cause: new Error(result.stderr.trim()),
      });
    }
    // The first line is "List of available languages in "<dir>" (N):".
    return result.stdout.toString('utf8').split('\n').slice(1).map((l) => l.trim()).filter((l) => l !== '' && l !== 'osd');
  }

  private async run(args: string[], signal: AbortSignal, input?: Uint8Array): Promise<ProcessResult> {
    try {
      return await runProcess({ command: this.binary, args, env: this.env, input, signal, maxStdoutBytes: this.maxOutputBytes });
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === 'ENOENT' || code === 'EACCES') {
        throw new TrawlError('DOCUMENT_OCR_UNAVAILABLE', `The OCR program "${this.binary}" cannot be run (${code}).`, {
          details: { reason: 'binaryMissing', binary: this.binary },
          cause: err,
        });
      }
      throw err;
    }
  }
}

/** A failed tesseract run, by what it printed: missing language data, or an image it could not decode. */
function recognitionFailure(result: ProcessResult, imageType: string): TrawlError {
  const cause = new Error(`tesseract exited with ${result.exitCode ?? result.exitSignal}: ${result.stderr.trim().slice(-2000)}`);
  const missingLanguages = [...result.stderr.matchAll(/Failed loading language '([^']+)'/g)].map((m) => m[1]);
  if (missingLanguages.length > 0 || result.stderr.includes('Could not initialize tesseract')) {
    return new TrawlError('DOCUMENT_OCR_UNAVAILABLE', 'tesseract could not load its language data.', {
      details: { reason: 'languageDataUnreadable', missingLanguages },
      cause,
    });
  }
  return new TrawlError('DOCUMENT_CORRUPT', `The ${imageType.toUpperCase()} image could not be decoded for OCR.`, {
    details: { format: 'image', imageType, ...(result.exitSignal !== null && { signal: result.exitSignal }) },
    cause,
  });
}

/**
 * True when the engine answers and has at least one language: the worker's start-up probe deciding
 * whether OCR is offered. Never throws.
 */
export async function ocrEngineAvailable(engine: OcrEngine): Promise<boolean> {
  try {
    return (await engine.languages()).length > 0;
  } catch {
    return false;
  }
}
