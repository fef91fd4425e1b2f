import { randomUUID } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { crawlRequestSchema, scrapeRequestSchema } from '@trawl/api-schema';
import { CrawlCoordinator } from './crawl-coordinator.js';
import type { CrawlRecord, CrawlStore } from './crawl-store.js';
import type { JobDispatcher, JobSpec } from './job-dispatcher.js';
import { parseJob } from './job-catalog.js';
import type { QueueSet } from './queue-set.js';

/**
 * A crawl's page job carries the crawl's parsed scrape options with the page's URL. A worker that
 * runs it at once uses that request as it is (JobRun.fresh); one that takes it from the queue (a
 * retry, a deferral, another worker) parses its JSON again, with the job catalog and the scrape
 * request schema, as the scrape processor does. Both must run the same request.
 */
describe('CrawlCoordinator.submit', () => {
  const scrapeOptionsList: Record<string, unknown>[] = [
    {},
    { formats: ['markdown', 'html', 'rawHtml', 'links', 'summary', 'images', 'branding', 'changeTracking', 'screenshot'] },
    { formats: [{ type: 'screenshot', fullPage: true, quality: 50, viewport: { width: 800, height: 600 } }] },
    { formats: [{ type: 'json', prompt: 'p', schema: { type: 'object', properties: { a: { type: 'string' } } } }] },
    { formats: ['markdown', { type: 'changeTracking', modes: ['git-diff', 'json'], schema: { type: 'object' }, prompt: 'p', tag: 't' }] },
    { formats: [{ type: 'attributes', selectors: [{ selector: 'a', attribute: 'href' }] }, { type: 'question', question: 'q?' }] },
    { headers: { cookie: 'a=b' }, includeTags: ['main'], excludeTags: ['nav'], onlyMainContent: false, onlyCleanContent: true },
    { timeout: 120000, waitFor: 50000, mobile: true, skipTlsVerification: false, blockAds: false, proxy: 'stealth' },
    { location: { languages: ['de-DE'] }, maxAge: 0, storeInCache: false, parsers: [{ type: 'pdf', mode: 'ocr', maxPages: 2 }] },
    { actions: [{ type: 'wait', milliseconds: 100 }, { type: 'click', selector: 'a', all: true }, { type: 'scrape' }, { type: 'pdf', format: 'A4' }] },
    { profile: { name: 'p' }, redactPII: { mode: 'mask', entities: ['EMAIL'] }, auditMetadata: { a: [1] }, threatProtection: { blockedTlds: ['zip'] } },
    { origin: 'js-sdk@4.3.0', integration: 'n8n', fastMode: true },
  ];

  it.each(scrapeOptionsList.map((o) => [JSON.stringify(o), o] as const))('builds a page job a queued run reads back as the same request: %s', async (_label, scrapeOptions) => {
    const request = crawlRequestSchema.parse({ url: 'https://example.com/', scrapeOptions });
    const specs: JobSpec[] = [];
    const dispatcher = { submit: async (spec: JobSpec) => { specs.push(spec); return { status: 'queued' }; } } as unknown as JobDispatcher;
    const coordinator = new CrawlCoordinator({} as CrawlStore, dispatcher, {} as QueueSet, async () => undefined, { now: () => 1_000 });
    const crawl = { id: randomUUID(), kind: 'crawl', teamId: 't1', zeroDataRetention: request.zeroDataRetention, request } as unknown as CrawlRecord;
    await coordinator.submit(crawl, randomUUID(), 'https://example.com/child', 1);

    const [spec] = specs;
    if (spec?.queue !== 'scrape' && spec?.queue !== 'browser') throw new Error(`expected a scrape job, got ${spec?.queue}`);
    const fresh = spec.data.request;
    const queued = parseJob(spec.queue, JSON.parse(JSON.stringify(spec.data)));
    const read = scrapeRequestSchema.parse(queued.request);
    expect(read).toEqual(JSON.parse(JSON.stringify(fresh)));
    // The crawl's options, unchanged, with the page's URL.
    const { url, zeroDataRetention: _z, storeInCache: _s, ...options } = read;
    const { storeInCache: _c, ...crawlOptions } = request.scrapeOptions;
    expect(url).toBe('https://example.com/child');
    expect(options).toEqual(JSON.parse(JSON.stringify(crawlOptions)));
  });
});
