import { describe, expect, it } from '@jest/globals';
import {
  createMonitorRequestSchema,
  monitorConfigSchema,
  monitorScrapeOptions,
  updateMonitorRequestSchema,
  type CreateMonitorRequest,
} from './monitor.js';
import { toValidationIssues } from './validation-issues.js';

const base = { name: 'Pricing', schedule: { cron: '*/30 * * * *' }, targets: [{ type: 'scrape', urls: ['https://example.com/pricing'] }] };

function parse(extra: Record<string, unknown> = {}): CreateMonitorRequest {
  return createMonitorRequestSchema.parse({ ...base, ...extra });
}

function issues(body: unknown): { path: string; message: string }[] {
  const r = createMonitorRequestSchema.safeParse(body);
  if (r.success) throw new Error(`expected failure for ${JSON.stringify(body)}`);
  return toValidationIssues(r.error).map(({ path, message }) => ({ path, message }));
}

describe('createMonitorRequestSchema', () => {
  it('normalizes the schedule and applies the defaults', () => {
    const m = parse({ origin: 'js-sdk@4.42.0' });
    expect(m.schedule).toEqual({ cron: '*/30 * * * *', timezone: 'UTC' });
    expect(m.retentionDays).toBe(30);
    const target = m.targets[0]!;
    if (target.type !== 'scrape') throw new Error('scrape target expected');
    expect(target.id).toBeUndefined();
    // Monitors fetch every time: a cached copy would always compare as unchanged.
    expect(target.scrapeOptions.maxAge).toBe(0);
    expect(target.scrapeOptions.formats).toEqual([{ type: 'markdown' }]);
  });

  it('turns text into cron and keeps the text, with a canonical time zone', () => {
    expect(parse({ schedule: { text: 'daily at 9:00', timezone: 'europe/paris' } }).schedule).toEqual({
      cron: '0 9 * * *', timezone: 'Europe/Paris', text: 'daily at 9:00',
    });
  });

  it('keeps a maxAge the caller gave', () => {
    const t = parse({ targets: [{ type: 'scrape', urls: ['https://a.test/'], scrapeOptions: { maxAge: 60_000 } }] }).targets[0]!;
    expect(t.type === 'scrape' && t.scrapeOptions.maxAge).toBe(60_000);
  });

  it('takes crawl targets with crawl options, v1 names mapped, limit capped for monitors', () => {
    const t = parse({ targets: [{ type: 'crawl', url: 'https://a.test/docs', crawlOptions: { maxDepth: 2, includePaths: ['^/docs'] } }] }).targets[0]!;
    if (t.type !== 'crawl') throw new Error('crawl target expected');
    expect(t.crawlOptions).toMatchObject({ maxDiscoveryDepth: 2, includePaths: ['^/docs'], limit: 100, sitemap: 'include', crawlEntireDomain: false });
    expect(issues({ ...base, targets: [{ type: 'crawl', url: 'https://a.test/', crawlOptions: { limit: 5000 } }] })[0]?.path).toBe('targets[0].crawlOptions.limit');
    expect(issues({ ...base, targets: [{ type: 'crawl', url: 'https://a.test/', crawlOptions: { webhook: 'https://h.test/' } }] })).toEqual([
      { path: 'targets[0].crawlOptions.webhook', message: 'Unrecognized key: "webhook"' },
    ]);
  });

  it('names unknown keys at every level', () => {
    expect(issues({ ...base, color: 'red' })).toEqual([{ path: 'color', message: 'Unrecognized key: "color"' }]);
    expect(issues({ ...base, schedule: { cron: '* * * * *', every: 5 } })[0]?.path).toBe('schedule.every');
    expect(issues({ ...base, targets: [{ type: 'scrape', urls: ['https://a.test/'], formats: ['markdown'] }] })[0]?.path).toBe('targets[0].formats');
  });

  it('refuses bad schedules with the field at fault', () => {
    expect(issues({ ...base, schedule: {} })).toEqual([{ path: 'schedule', message: 'Give exactly one of schedule.cron or schedule.text' }]);
    expect(issues({ ...base, schedule: { cron: '* * * * *', text: 'hourly' } })[0]?.path).toBe('schedule');
    expect(issues({ ...base, schedule: { cron: '* * * * * *' } })[0]?.path).toBe('schedule.cron');
    expect(issues({ ...base, schedule: { text: 'whenever' } })[0]).toMatchObject({ path: 'schedule.text', message: expect.stringMatching(/Unsupported schedule text/) });
    expect(issues({ ...base, schedule: { cron: '0 * * * *', timezone: 'Mars/Base' } })).toEqual([
      { path: 'schedule.timezone', message: 'Unknown time zone "Mars/Base"; use an IANA name such as "Europe/Paris"' },
    ]);
  });

  it('checks targets: count, URLs, duplicates, ids, scrape options', () => {
    expect(issues({ ...base, targets: [] })[0]?.path).toBe('targets');
    const many = Array.from({ length: 21 }, () => base.targets[0]);
    expect(issues({ ...base, targets: many })[0]?.path).toBe('targets');
    expect(issues({ ...base, targets: [{ type: 'scrape', urls: Array.from({ length: 101 }, (_, i) => `https://a.test/${i}`) }] })[0]?.path).toBe('targets[0].urls');
    expect(issues({ ...base, targets: [{ type: 'scrape', urls: ['https://a.test/', 'https://a.test/'] }] })).toEqual([
      { path: 'targets[0].urls[1]', message: 'Duplicate URL https://a.test/' },
    ]);
    expect(issues({ ...base, targets: [{ type: 'scrape', urls: ['ftp://a.test/'] }] })[0]?.path).toBe('targets[0].urls[0]');
    const dupIds = [{ id: 'x', ...base.targets[0] }, { id: 'x', type: 'crawl', url: 'https://a.test/' }];
    expect(issues({ ...base, targets: dupIds })).toEqual([{ path: 'targets[1].id', message: 'Duplicate target id "x"' }]);
    expect(issues({ ...base, targets: [{ type: 'scrape', urls: ['https://a.test/'], scrapeOptions: { timeout: 10 } }] })[0]?.path).toBe('targets[0].scrapeOptions.timeout');
    expect(issues({ ...base, targets: [{ type: 'rss', url: 'https://a.test/' }] })[0]?.path).toBe('targets[0].type');
    expect(issues({ ...base, targets: [{ type: 'scrape', urls: ['https://a.test/'], scrapeOptions: { lockdown: true } }] })).toEqual([
      { path: 'targets[0].scrapeOptions.lockdown', message: 'lockdown serves pages from the cache only; a monitor fetches them at every check' },
    ]);
    expect(issues({ ...base, targets: [{ type: 'crawl', url: 'https://a.test/', scrapeOptions: { minAge: 1000 } }] })[0]?.path).toBe('targets[0].scrapeOptions.minAge');
  });

  it('accepts search targets, goal, judgeEnabled and email so the gateway can refuse them by name', () => {
    const m = parse({
      targets: [{ type: 'search', queries: ['trawl'] }],
      goal: 'price drops', judgeEnabled: true,
      notification: { email: { enabled: true, recipients: ['a@example.com'] } },
    });
    expect(m.targets[0]?.type).toBe('search');
    expect(m.judgeEnabled).toBe(true);
  });
});

describe('updateMonitorRequestSchema', () => {
  it('takes partial changes and nulls', () => {
    expect(updateMonitorRequestSchema.parse({ status: 'paused', webhook: null, goal: null })).toEqual({ status: 'paused', webhook: null, goal: null });
    expect(updateMonitorRequestSchema.safeParse({ status: 'deleted' }).success).toBe(false);
    expect(updateMonitorRequestSchema.safeParse({ nope: 1 }).success).toBe(false);
  });
});

describe('monitorConfigSchema', () => {
  it('reads back a stored configuration (its own output parses again to the same value)', () => {
    const m = parse({ targets: [{ type: 'crawl', url: 'https://a.test/' }, { type: 'scrape', urls: ['https://a.test/x'] }] });
    const config = { name: m.name, schedule: m.schedule, targets: m.targets.map((t, i) => ({ ...t, id: `t${i}` })), retentionDays: m.retentionDays };
    const stored = JSON.parse(JSON.stringify(config)) as unknown;
    expect(monitorConfigSchema.parse(stored)).toEqual(config);
  });
});

describe('monitorScrapeOptions', () => {
  it('adds markdown and git-diff change tracking tagged with the monitor and target', () => {
    expect(monitorScrapeOptions({ formats: [{ type: 'links' }] }, 'm1', 't1').formats).toEqual([
      { type: 'markdown' }, { type: 'links' }, { type: 'changeTracking', modes: ['git-diff'], tag: 'monitor:m1:t1' },
    ]);
  });

  it("keeps the caller's change tracking tag and modes", () => {
    const out = monitorScrapeOptions({ formats: [{ type: 'markdown' }, { type: 'changeTracking', modes: ['json'], tag: 'prod' }] }, 'm1', 't1');
    expect(out.formats).toEqual([{ type: 'markdown' }, { type: 'changeTracking', modes: ['json', 'git-diff'], tag: 'prod' }]);
  });
});
