import type { TrawlError } from '@trawl/api-schema';

/**
 * The contract between the document readers (PDF text layer, OCR, office formats) and the layout step.
 *
 * Every reader turns a file into semantic HTML (headings, paragraphs, lists, tables, links); the worker
 * then runs that HTML through the same HTML pipeline as a web page, so `markdown`, `html`, `rawHtml`
 * and `links` mean the same for a PDF as for a page. Positioned readers (PDF text layer, OCR) produce
 * {@link PageText} and share one layout step (`layout/`), which recovers reading order, headings,
 * paragraphs, lists and tables from geometry.
 */

/** One run of text on a page: a word, or a span of words sharing a font. */
export interface TextRun {
  text: string;
  /** Left edge, in page units, from the page's left. */
  x: number;
  /** Top edge, in page units, from the page's top (y grows downwards). */
  y: number;
  width: number;
  height: number;
  /** Font size in page units (for OCR: the line's x-height estimate scaled to a size). */
  fontSize: number;
  bold: boolean;
  italic: boolean;
  /** Font family or PostScript name when the reader knows it (monospace detection). */
  fontName?: string;
  /** True for right-to-left text (Arabic, Hebrew); the run's `text` is in logical order. */
  rtl?: boolean;
  /** OCR confidence 0..100; absent for a text layer. */
  confidence?: number;
}

/** A link annotation: a clickable rectangle with its target. */
export interface PageLink {
  x: number;
  y: number;
  width: number;
  height: number;
  url: string;
}

/** The positioned text of one page. */
export interface PageText {
  /** 1-based page number in the file. */
  pageNumber: number;
  width: number;
  height: number;
  runs: TextRun[];
  links: PageLink[];
  /** Where the runs came from. */
  source: 'text-layer' | 'ocr';
}

/** An OCR engine: recognizes the words of one image. Implementations must honour the signal. */
export interface OcrEngine {
  /** Languages installed and usable (for example `eng`, `deu`), as the engine names them. */
  languages(): Promise<string[]>;
  /**
   * Recognizes a PNG/JPEG/TIFF/... image. Returns a page whose units are the image's pixels (width and
   * height are the image's size), with one run per word.
   */
  recognize(image: Uint8Array, opts: { languages: string[]; signal: AbortSignal; pageNumber?: number }): Promise<PageText>;
}

/** Limits that make hostile files fail fast; every reader checks the ones that apply to it. */
export interface DocumentLimits {
  /** Pages read at most (the request's `maxPages` or the server's page budget, whichever is lower). */
  maxPages: number;
  /** Total uncompressed bytes a reader may inflate from a container (ZIP entries, PDF streams). */
  maxInflatedBytes: number;
  /** Cells of a spreadsheet read at most across all sheets. */
  maxCells: number;
}

/** Options of one parse. */
export interface ParseDocumentOptions {
  /** PDF text strategy: `fast` text layer only, `auto` text layer then OCR of pages without text, `ocr` every page. */
  pdfMode: 'fast' | 'auto' | 'ocr';
  limits: DocumentLimits;
  /** Epoch ms the parse must finish by; readers check it between pages and throw SCRAPE_TIMEOUT. */
  deadline: number;
  signal: AbortSignal;
  /** Absent when the server has no OCR engine: OCR-needing work fails with DOCUMENT_OCR_UNAVAILABLE (`ocr` mode, images) or is skipped (`auto`). */
  ocr?: OcrEngine;
  /** OCR languages, in the engine's names; the first is the main one. */
  ocrLanguages: string[];
  /** PDFs: also lay out each page on its own ({@link ParsedDocument.pages}). Default false. */
  perPage?: boolean;
  now?: () => number;
}

/** The kinds of document the readers know. */
export type DocumentFormat = 'pdf' | 'docx' | 'xlsx' | 'pptx' | 'odt' | 'ods' | 'odp' | 'rtf' | 'csv' | 'image';

/** What a reader returns. */
export interface ParsedDocument {
  format: DocumentFormat;
  /** Semantic HTML of the whole document (a full `<html>` document with `<title>` when known). */
  html: string;
  /** Title from the document's own metadata, when it has one. */
  title?: string;
  /** Other metadata from the file (author, subject, keywords, created, modified, language...), strings only. */
  metadata: Record<string, string>;
  /** Pages (or slides, or sheets) processed. PDFs: bounded by `limits.maxPages`. */
  numPages: number;
  /** Pages in the file, when known. */
  totalPages?: number;
  /** Pages whose text came from OCR. */
  ocrPages: number;
  /** PDFs read with `perPage`: each page read, laid out on its own, in page order. */
  pages?: Array<{ pageNumber: number; html: string }>;
  /** Non-fatal problems worth logging (a table that could not be read, a page whose OCR failed). */
  warnings: string[];
}

/** The error type readers throw: a {@link TrawlError} with a DOCUMENT_* or SCRAPE_TIMEOUT code. */
export type DocumentError = TrawlError;
