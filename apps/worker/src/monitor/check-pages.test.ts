import { describe, expect, it } from '@jest/globals';
import { checkOutcome, documentPage, errorPage, isChange, summarize } from './check-pages.js';

const ctx = { checkId: 'c1', targetId: 't1', now: 1_000 };

function doc(url: string, changeTracking: unknown, extra: Record<string, unknown> = {}) {
  return { markdown: '# x', metadata: { sourceURL: url, url, scrapeId: `s-${url}`, statusCode: 200, title: 'X', ...extra }, changeTracking };
}

describe('documentPage', () => {
  it('takes the status and git diff from change tracking', () => {
    const p = documentPage(doc('https://a.test/p', { changeStatus: 'changed', visibility: 'visible', previousScrapeAt: null, diff: '-old\n+new' }), ctx);
    expect(p).toMatchObject({
      targetId: 't1', url: 'https://a.test/p', status: 'changed', currentScrapeId: 's-https://a.test/p', statusCode: 200,
      error: null, diff: { text: '-old\n+new' }, metadata: { title: 'X', url: 'https://a.test/p', visibility: 'visible' }, createdAt: 1_000,
    });
    expect(documentPage(doc('https://a.test/p', { changeStatus: 'same', diff: '' }), ctx)).toMatchObject({ status: 'same', diff: null });
  });

  it('gives a page the same id for the same URL, target and check', () => {
    const a = documentPage(doc('https://a.test/p', { changeStatus: 'new' }), ctx).id;
    expect(documentPage(doc('https://a.test/p', { changeStatus: 'same' }), ctx).id).toBe(a);
    expect(documentPage(doc('https://a.test/p', { changeStatus: 'new' }), { ...ctx, checkId: 'c2' }).id).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('makes a document without a change tracking result an error page', () => {
    expect(documentPage(doc('https://a.test/p', undefined), ctx)).toMatchObject({ status: 'error', error: 'The page has no change tracking result', diff: null });
    expect(documentPage(doc('https://a.test/p', { changeStatus: 'weird' }), ctx).status).toBe('error');
  });
});

describe('errorPage', () => {
  it('keeps the URL, message and code', () => {
    expect(errorPage({ id: 'j', timestamp: 'x', url: 'https://a.test/404', code: 'SCRAPE_HTTP_ERROR', error: 'HTTP 404' }, ctx)).toMatchObject({
      url: 'https://a.test/404', status: 'error', error: 'HTTP 404', metadata: { code: 'SCRAPE_HTTP_ERROR' }, diff: null,
    });
  });
});

describe('summarize, isChange and checkOutcome', () => {
  const page = (status: 'same' | 'new' | 'changed' | 'removed' | 'error') => ({ status });

  it('counts pages by status; only new, changed and removed are changes', () => {
    const pages = (['same', 'same', 'new', 'changed', 'removed', 'error'] as const).map((s, i) => documentPage(doc(`https://a.test/${i}`, { changeStatus: s }), ctx));
    expect(summarize(pages)).toEqual({ totalPages: 6, same: 2, new: 1, changed: 1, removed: 1, error: 1 });
    expect(['same', 'new', 'changed', 'removed', 'error'].map((s) => isChange(page(s as never)))).toEqual([false, true, true, true, false]);
  });

  it('completed, partial or failed', () => {
    const s = (same: number, error: number) => ({ totalPages: same + error, same, changed: 0, new: 0, removed: 0, error });
    expect(checkOutcome(s(2, 0), [], 1)).toEqual({ status: 'completed', error: null });
    expect(checkOutcome(s(0, 0), [], 1)).toEqual({ status: 'completed', error: null });
    expect(checkOutcome(s(2, 1), [], 1)).toEqual({ status: 'partial', error: '1 of 3 pages failed' });
    expect(checkOutcome(s(2, 0), ['target t2: crawl failed'], 2)).toEqual({ status: 'partial', error: 'target t2: crawl failed' });
    expect(checkOutcome(s(0, 2), [], 1)).toEqual({ status: 'failed', error: '2 of 2 pages failed' });
    expect(checkOutcome(s(0, 0), ['target t1: batch cancelled'], 1)).toEqual({ status: 'failed', error: 'target t1: batch cancelled' });
  });
});
