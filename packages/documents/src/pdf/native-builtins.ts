/**
 * Built-ins of this thread as the engine made them, taken before pdf.js's legacy build loads (see
 * `pdfjs.ts`, which imports this module first). That build bundles core-js, which replaces a built-in
 * whenever the engine misses a corner of the newest spec: on Node 20 it swaps `Array.prototype.push`
 * (V8 mishandles array-likes longer than 2^32) and `JSON.parse` (no source-text access for revivers)
 * for JavaScript versions, several times slower, for the whole thread. pdf.js needs neither corner.
 */
export const NATIVE_BUILTINS = { push: Array.prototype.push, jsonParse: JSON.parse } as const;

/** Puts the engine's own `Array.prototype.push` and `JSON.parse` back, if something replaced them. */
export function restoreNativeBuiltins(): void {
  if (Array.prototype.push !== NATIVE_BUILTINS.push) {
    Object.defineProperty(Array.prototype, 'push', { value: NATIVE_BUILTINS.push, writable: true, configurable: true, enumerable: false });
  }
  if (JSON.parse !== NATIVE_BUILTINS.jsonParse) {
    Object.defineProperty(JSON, 'parse', { value: NATIVE_BUILTINS.jsonParse, writable: true, configurable: true, enumerable: false });
  }
}
