import type { ParseDocumentOptions } from '../types.js';

/** Parse options for the reader tests: generous limits, a deadline far away; override what a test needs. */
export function testOptions(over: Partial<Omit<ParseDocumentOptions, 'limits'>> & { limits?: Partial<ParseDocumentOptions['limits']> } = {}): ParseDocumentOptions {
  const { limits, ...rest } = over;
  return {
    pdfMode: 'fast',
    limits: { maxPages: 100, maxInflatedBytes: 50 * 1024 * 1024, maxCells: 100_000, ...limits },
    deadline: Number.MAX_SAFE_INTEGER,
    signal: new AbortController().signal,
    ocrLanguages: [],
    ...rest,
  };
}
