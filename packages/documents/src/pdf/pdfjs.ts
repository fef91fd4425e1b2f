// First: it keeps the thread's own built-ins before pdf.js's bundled core-js replaces some of them
// (every module of this package reaches pdf.js through this one).
import { restoreNativeBuiltins } from './native-builtins.js';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { TrawlError } from '@trawl/api-schema';
import { getDocument, VerbosityLevel } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** What the other modules use of pdf.js: through this module only, so the built-ins are kept first. */
export { OPS, PDFDateString } from 'pdfjs-dist/legacy/build/pdf.mjs';
// Loading the worker module in this thread registers its message handler on globalThis: pdf.js then
// parses in-thread ("fake worker") instead of importing the worker file on first use. The caller runs
// the whole parse in a worker_thread with memory limits and a deadline.
import 'pdfjs-dist/legacy/build/pdf.worker.mjs';

// The JavaScript `push` and `JSON.parse` core-js installed were the top of a PDF parse's profile
// (`push` alone): the `pdf` benchmark reads 63.9 pages/s without them against 54.9 (+16%, same
// window), and they slowed every other user of the thread too.
restoreNativeBuiltins();

const pdfjsRoot = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));

/** Decoded images larger than this many pixels are skipped (a hostile file's memory blow-up). */
const MAX_IMAGE_PIXELS = 64 * 1024 * 1024;

/** A loaded document: pdf.js's proxy, typed loosely (its declarations pull in DOM types). */
export type PdfDocument = Awaited<ReturnType<typeof getDocument>['promise']>;
export type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;

/** True for pdf.js's PasswordException (needs a password, or the one given is wrong). */
const isPasswordError = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'PasswordException';

/**
 * Opens a PDF with pdf.js: no eval, no font faces, no system fonts, no network (cMaps, standard fonts
 * and wasm decoders come from the pdfjs-dist package on disk), errors-only logging. The bytes are
 * copied: pdf.js transfers (detaches) the buffer it is given.
 * Throws DOCUMENT_ENCRYPTED for a password-protected file, DOCUMENT_CORRUPT for anything unreadable.
 */
export async function openPdf(bytes: Uint8Array, opts: { password?: string } = {}): Promise<PdfDocument> {
  const task = getDocument({
    data: new Uint8Array(bytes),
    password: opts.password,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    isOffscreenCanvasSupported: false,
    isImageDecoderSupported: false,
    enableXfa: false,
    disableAutoFetch: true,
    disableStream: true,
    disableRange: true,
    maxImageSize: MAX_IMAGE_PIXELS,
    verbosity: VerbosityLevel.ERRORS,
    cMapUrl: join(pdfjsRoot, 'cmaps') + '/',
    cMapPacked: true,
    standardFontDataUrl: join(pdfjsRoot, 'standard_fonts') + '/',
    wasmUrl: join(pdfjsRoot, 'wasm') + '/',
    iccUrl: join(pdfjsRoot, 'iccs') + '/',
  });
  try {
    return await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    if (isPasswordError(err)) {
      throw new TrawlError('DOCUMENT_ENCRYPTED', 'The PDF is password-protected.', { details: { format: 'pdf' }, cause: err });
    }
    const message = err instanceof Error ? err.message : String(err);
    if (/encrypt|crypt|security handler/i.test(message)) {
      throw new TrawlError('DOCUMENT_ENCRYPTED', 'The PDF uses an encryption Trawl cannot read.', { details: { format: 'pdf' }, cause: err });
    }
    throw new TrawlError('DOCUMENT_CORRUPT', 'The PDF is damaged, truncated or not a PDF.', { details: { format: 'pdf' }, cause: err });
  }
}
