import { describe, expect, it } from '@jest/globals';
import { documentJsonIn, type StoredResult } from './result-store.js';

const ok = (document: unknown): StoredResult<unknown> => ({
  jobId: 'job-1', teamId: 'team-"1"', finishedAt: '2026-11-28T00:00:00.000Z', outcome: { ok: true, document },
});

describe('documentJsonIn', () => {
  const document = { markdown: '# "quoted" }} and \\u2028', metadata: { statusCode: 200, nested: [1, { a: null }] } };

  it("cuts a successful outcome's document out of its JSON, as stored and as JSON.stringify writes it", () => {
    const result = ok(document);
    const json = JSON.stringify(result);
    expect(documentJsonIn(json, JSON.parse(json) as StoredResult<unknown>)).toBe(JSON.stringify(document));
    expect(documentJsonIn(json, result)).toBe(JSON.stringify(document));
  });

  it('gives nothing for a failure, another layout or extra fields', () => {
    const failed: StoredResult<unknown> = { ...ok(null), outcome: { ok: false, error: { code: 'SCRAPE_FAILED', message: 'x', retryable: false } } };
    expect(documentJsonIn(JSON.stringify(failed), failed)).toBeUndefined();
    const result = ok(document);
    // Indented, or the outcome first: the text is not laid out as stored.
    expect(documentJsonIn(JSON.stringify(result, null, 1), result)).toBeUndefined();
    const reordered = { outcome: result.outcome, jobId: result.jobId, teamId: result.teamId, finishedAt: result.finishedAt };
    expect(documentJsonIn(JSON.stringify(reordered), reordered as StoredResult<unknown>)).toBeUndefined();
    // A field after the document (in the outcome or the result) would be cut out with it.
    const extraOutcome = { ...result, outcome: { ok: true, document, warning: 'w' } } as StoredResult<unknown>;
    expect(documentJsonIn(JSON.stringify(extraOutcome), extraOutcome)).toBeUndefined();
    const extraResult = { ...result, replyTo: { to: 'r' } } as StoredResult<unknown>;
    expect(documentJsonIn(JSON.stringify(extraResult), extraResult)).toBeUndefined();
    // A field of the result missing and another one after the outcome: still four keys.
    const { jobId: _jobId, ...noJob } = result;
    const shifted = { ...noJob, meta: { v: 2 } } as unknown as StoredResult<unknown>;
    expect(documentJsonIn(JSON.stringify(shifted), shifted)).toBeUndefined();
    // Whatever an announcement of another version parses into.
    for (const other of [null, 42, 'text', [], {}, { outcome: null }]) {
      expect(documentJsonIn(JSON.stringify(other), other as unknown as StoredResult<unknown>)).toBeUndefined();
    }
  });
});
