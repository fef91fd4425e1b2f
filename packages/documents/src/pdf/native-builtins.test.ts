// read-pdf first, as the document threads load it: whatever reaches pdf.js first must keep the built-ins.
import { readPdf } from './read-pdf.js';
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The engine's built-in methods are not constructors and have no `prototype`; core-js's replacements
 * are plain functions, which do (their `toString` is made to say `[native code]`, so it tells nothing).
 */
const isEngineBuiltin = (fn: unknown): boolean => typeof fn === 'function' && !Object.hasOwn(fn, 'prototype');
const fixtures = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__');

describe('the built-ins pdf.js leaves behind', () => {
  it('are the engine\'s own Array.prototype.push and JSON.parse, not core-js\'s JavaScript versions, after pdf.js loaded and parsed', async () => {
    const bytes = new Uint8Array(readFileSync(join(fixtures, 'text.pdf')));
    const doc = await readPdf(bytes, {
      pdfMode: 'fast', limits: { maxPages: 10, maxInflatedBytes: 1e8, maxCells: 1e6 },
      deadline: Date.now() + 30_000, signal: new AbortController().signal, ocrLanguages: ['eng'],
    });
    expect(doc.numPages).toBeGreaterThan(0);
    expect(isEngineBuiltin(Array.prototype.push)).toBe(true);
    expect(isEngineBuiltin(JSON.parse)).toBe(true);
  });
});
