import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATIVE_BUILTINS } from './native-builtins.js';
import { readPdf } from './read-pdf.js';

const isNative = (fn: unknown): boolean => typeof fn === 'function' && /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(fn));
const fixtures = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__');

describe('the built-ins pdf.js leaves behind', () => {
  it('are the engine\'s own Array.prototype.push and JSON.parse, not core-js\'s JavaScript versions, after pdf.js loaded and parsed', async () => {
    const bytes = new Uint8Array(readFileSync(join(fixtures, 'text.pdf')));
    const doc = await readPdf(bytes, {
      pdfMode: 'fast', limits: { maxPages: 10, maxInflatedBytes: 1e8, maxCells: 1e6 },
      deadline: Date.now() + 30_000, signal: new AbortController().signal, ocrLanguages: ['eng'],
    });
    expect(doc.numPages).toBeGreaterThan(0);
    expect(isNative(NATIVE_BUILTINS.push)).toBe(true);
    expect(Array.prototype.push).toBe(NATIVE_BUILTINS.push);
    expect(isNative(JSON.parse)).toBe(true);
    expect(JSON.parse).toBe(NATIVE_BUILTINS.jsonParse);
  });
});
