import { describe, expect, it } from '@jest/globals';
import { enforceResultSize } from './result-size.js';

describe('enforceResultSize', () => {
  it('keeps a document within the limit, with the JSON it measured', () => {
    const outcome = { ok: true as const, document: { markdown: 'x'.repeat(100), metadata: { statusCode: 200 } } };
    const sized = enforceResultSize(outcome, 1000);
    expect(sized.outcome).toBe(outcome);
    expect(sized.documentJson).toBe(JSON.stringify(outcome.document));
  });

  it('turns a larger document into RESULT_TOO_LARGE, counting UTF-8 bytes', () => {
    const r = enforceResultSize({ ok: true, document: { markdown: 'é'.repeat(400) } }, 500);
    expect(r.outcome).toEqual({ ok: false, error: expect.objectContaining({ code: 'RESULT_TOO_LARGE', details: { limitBytes: 500 } }) });
    expect(r.documentJson).toBeUndefined();
  });

  it('leaves failures alone', () => {
    const outcome = { ok: false as const, error: { code: 'SCRAPE_FAILED' as const, message: 'x', retryable: false } };
    expect(enforceResultSize(outcome, 1)).toEqual({ outcome });
  });
});
