import { TrawlError } from '@trawl/api-schema';
import type { JobOutcome } from '@trawl/queue';

/**
 * The outcome to store: a Document whose JSON is larger than `maxBytes` becomes a RESULT_TOO_LARGE
 * failure instead, so Redis, the result channel and the gateway that reads it never carry it (a page
 * could otherwise put hundreds of MiB there through its formats and action outputs). `documentJson`:
 * the JSON of a document that was kept, written to measure it, for the writers of the outcome to
 * reuse (the result store, a crawl's page store) instead of serializing the document again. Valid
 * while the document is not changed.
 */
export function enforceResultSize<T>(outcome: JobOutcome<T>, maxBytes: number): { outcome: JobOutcome<T>; documentJson?: string } {
  if (!outcome.ok) return { outcome };
  let json: string | undefined;
  let bytes: number;
  try {
    json = JSON.stringify(outcome.document);
    bytes = Buffer.byteLength(json);
  } catch (err) {
    // Past V8's longest string the Document cannot even be written out.
    if (!(err instanceof RangeError)) throw err;
    bytes = Number.POSITIVE_INFINITY;
  }
  if (bytes <= maxBytes) return json === undefined ? { outcome } : { outcome, documentJson: json };
  const error = new TrawlError('RESULT_TOO_LARGE', `The document is larger than the ${maxBytes} bytes this server stores; ask for fewer formats or a smaller page`, {
    details: { limitBytes: maxBytes },
  });
  return { outcome: { ok: false, error: error.toData() } };
}
