import { decodeValidUtf8 } from './charset.js';
import type { FetchResult } from './fetcher.js';

/** The text of a result given by {@link deferText}: its bytes until it is read, then the text. */
interface DeferredText {
  utf8: Buffer | undefined;
  text: string | undefined;
}

const deferred = new WeakMap<FetchResult, DeferredText>();

function readText(this: FetchResult): string | undefined {
  const state = deferred.get(this)!;
  if (state.utf8 !== undefined) {
    state.text = decodeValidUtf8(state.utf8);
    state.utf8 = undefined;
  }
  return state.text;
}

function writeText(this: FetchResult, value: string | undefined): void {
  const state = deferred.get(this)!;
  state.text = value;
  state.utf8 = undefined;
}

/**
 * One accessor for every deferred text (functions, not closures): V8 then gives every such result the
 * same hidden class (one more than a result decoded at once), and the pipeline's reads of pages stay fast.
 */
const TEXT_ACCESSOR: PropertyDescriptor = { get: readText, set: writeText, enumerable: true, configurable: true };

/**
 * Gives `result` a `text` that is `utf8` (valid UTF-8, without a BOM) decoded when first read, not
 * now: a worker hands a page it does not read itself to an HTML conversion thread as bytes
 * ({@link undecodedUtf8}), which decodes them there, and neither decodes the page on the event loop
 * nor copies the decoded text to the thread (about 0.4 ms of the event loop for a 170 KB article).
 * `text` stays an own enumerable property: a copy of the object (spread, JSON, a structured clone)
 * holds the text, decoded then.
 */
export function deferText(result: FetchResult, utf8: Buffer): void {
  deferred.set(result, { utf8, text: undefined });
  Object.defineProperty(result, 'text', TEXT_ACCESSOR);
}

/**
 * The bytes of `page`'s text while it is not decoded (see {@link deferText}): valid UTF-8, without a
 * BOM, exactly its text encoded. Undefined once it has been read, and for a text decoded at once
 * (another encoding, invalid bytes, another engine).
 */
export function undecodedUtf8(page: FetchResult): Buffer | undefined {
  return deferred.get(page)?.utf8;
}

/**
 * The first `chars` UTF-16 code units of `page`'s text (`text.slice(0, chars)`), decoding only about
 * that much of a text not decoded yet; undefined when the page has no text.
 */
export function textHead(page: FetchResult, chars: number): string | undefined {
  const bytes = undecodedUtf8(page);
  if (bytes === undefined) return page.text?.slice(0, chars);
  return utf8Head(bytes, chars);
}

/**
 * `decodeValidUtf8(bytes).slice(0, chars)` from a prefix of the bytes. A prefix cut inside a
 * character decodes with one U+FFFD at its end, and every code unit before it is exact: a prefix that
 * decodes to more than `chars` code units holds the answer. Mostly-ASCII markup needs about `chars`
 * bytes; no text needs more than three bytes a code unit.
 */
export function utf8Head(bytes: Buffer, chars: number): string {
  let n = Math.min(bytes.length, chars + (chars >> 3) + 4);
  for (;;) {
    if (n >= bytes.length) return decodeValidUtf8(bytes).slice(0, chars);
    const head = bytes.subarray(0, n).toString('utf8');
    if (head.length > chars) return head.slice(0, chars);
    n = Math.max(n * 2, Math.min(bytes.length, 3 * chars + 4));
  }
}
