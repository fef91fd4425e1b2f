import { TrawlError } from '@trawl/api-schema';
import type { JobOutcome } from '@trawl/queue';

/**
 * The outcome to store: a Document whose JSON is larger than `maxBytes` becomes a RESULT_TOO_LARGE
 * failure instead, so Redis, the result channel and the gateway that reads it never carry it (a page
 * could otherwise put hundreds of MiB there through its formats and action outputs).
 */
export function enforceResultSize<T>(outcome: JobOutcome<T>, maxBytes: number): JobOutcome<T> {
  if (!outcome.ok) return outcome;
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(outcome.document));
  } catch (err) {
    // Past V8's longest string the Document cannot even be written out.
    if (!(err instanceof RangeError)) throw err;
    bytes = Number.POSITIVE_INFINITY;
  }
  if (bytes <= maxBytes) return outcome;
  const error = new TrawlError('RESULT_TOO_LARGE', `The document is larger than the ${maxBytes} bytes this server stores; ask for fewer formats or a smaller page`, {
    details: { limitBytes: maxBytes },
  });
  return { ok: false, error: error.toData() };
}
