/**
 * Document readers: the PDF text layer and its layout into semantic HTML, OCR of images and scanned
 * pages (tesseract), and the DOCX, XLSX, PPTX, ODF, RTF and CSV readers. {@link detectDocumentFormat}
 * only sniffs bytes; pdf.js is imported on the first PDF {@link parseDocument} reads, so a process that
 * routes documents without parsing them never loads it. Knows nothing of queues or browsers.
 *
 * @packageDocumentation
 */
export type {
  DocumentFormat, DocumentLimits, OcrEngine, PageLink, PageText, ParseDocumentOptions, ParsedDocument, TextRun,
} from './types.js';
export { detectDocumentFormat, parseDocument, type DocumentInput } from './parse-document.js';
export { TesseractOcrEngine, ocrEngineAvailable } from './ocr/index.js';
export { pagesToHtml } from './layout/index.js';
