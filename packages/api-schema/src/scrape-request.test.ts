import { describe, expect, it } from '@jest/globals';
import { scrapeRequestSchema, type ScrapeRequestInput } from './scrape-request.js';
import { scrapeOptionsObjectSchema, scrapeOptionsSchema, LOCKDOWN_MAX_AGE_MS } from './scrape-options.js';
import { toValidationIssues, describeValidationIssues, type ValidationIssue } from './validation-issues.js';

const URL = 'https://example.com/page';

function parse(extra: Record<string, unknown>) {
  return scrapeRequestSchema.parse({ url: URL, ...extra } as ScrapeRequestInput);
}

function issues(extra: Record<string, unknown>): ValidationIssue[] {
  const result = scrapeRequestSchema.safeParse({ url: URL, ...extra });
  if (result.success) throw new Error(`expected failure for ${JSON.stringify(extra)}`);
  return toValidationIssues(result.error);
}

function paths(extra: Record<string, unknown>): string[] {
  return issues(extra).map((i) => i.path);
}

describe('scrapeRequestSchema defaults', () => {
  it('applies every documented default', () => {
    expect(parse({})).toEqual({
      url: URL,
      formats: [{ type: 'markdown' }],
      onlyMainContent: true,
      onlyCleanContent: false,
      timeout: 60000,
      waitFor: 0,
      mobile: false,
      skipTlsVerification: true,
      removeBase64Images: true,
      blockAds: true,
      proxy: 'auto',
      maxAge: 172800000,
      lockdown: false,
      storeInCache: true,
      parsers: [{ type: 'pdf', mode: 'auto' }],
      redactPII: false,
      zeroDataRetention: false,
    });
  });

  it('leaves optional members absent', () => {
    const out = parse({});
    for (const key of ['location', 'minAge', 'actions', 'profile', 'headers', 'origin', 'integration']) {
      expect(out).not.toHaveProperty(key);
    }
  });

  it('defaults location.country to US and profile.saveChanges to true', () => {
    const out = parse({ location: { languages: ['de-DE'] }, profile: { name: 'p' } });
    expect(out.location).toEqual({ country: 'US', languages: ['de-DE'] });
    expect(out.profile).toEqual({ name: 'p', saveChanges: true });
  });

  it('normalizes parsers to objects', () => {
    expect(parse({ parsers: ['pdf'] }).parsers).toEqual([{ type: 'pdf', mode: 'auto' }]);
    expect(parse({ parsers: [{ type: 'pdf', mode: 'ocr', maxPages: 3 }] }).parsers).toEqual([
      { type: 'pdf', mode: 'ocr', maxPages: 3 },
    ]);
    expect(parse({ parsers: [] }).parsers).toEqual([]);
  });

  it('raises the maxAge default to two years with lockdown and turns on zero data retention', () => {
    const out = parse({ lockdown: true });
    expect(out.maxAge).toBe(LOCKDOWN_MAX_AGE_MS);
    expect(out.zeroDataRetention).toBe(true);
    expect(out.storeInCache).toBe(false);
    expect(parse({ lockdown: true, maxAge: 5 }).maxAge).toBe(5);
  });

  it('forces storeInCache false with actions or headers, not with empty headers', () => {
    expect(parse({ headers: { cookie: 'a=b' } }).storeInCache).toBe(false);
    expect(parse({ actions: [{ type: 'scrape' }] }).storeInCache).toBe(false);
    expect(parse({ headers: {} }).storeInCache).toBe(true);
    expect(parse({ zeroDataRetention: true }).storeInCache).toBe(false);
    expect(parse({ profile: { name: 'logged-in' } }).storeInCache).toBe(false);
  });

  it('refuses actions in the cache-only modes and change tracking under zero data retention', () => {
    expect(paths({ url: 'http://a.example', lockdown: true, actions: [{ type: 'scrape' }] })).toEqual(['actions']);
    expect(paths({ url: 'http://a.example', minAge: 1, actions: [{ type: 'scrape' }] })).toEqual(['actions']);
    expect(paths({ url: 'http://a.example', zeroDataRetention: true, formats: ['markdown', 'changeTracking'] })).toEqual(['formats[1]']);
    expect(paths({ url: 'http://a.example', lockdown: true, formats: [{ type: 'changeTracking', modes: ['git-diff'] }] })).toEqual(['formats[0]']);
    expect(parse({ formats: ['changeTracking'] }).formats).toEqual([{ type: 'changeTracking' }]);
  });

  it('accepts origin, integration, auditMetadata, threatProtection and redactPII forms', () => {
    const out = parse({
      origin: 'js-sdk@4.3.0',
      integration: 'n8n',
      auditMetadata: { anything: { nested: [1] } },
      threatProtection: { riskScoreThreshold: 50, blacklist: ['a.com'], whitelist: [], blockedTlds: ['zip'] },
      redactPII: { mode: 'mask', entities: ['EMAIL'], replacement: '[x]' },
    });
    expect(out.origin).toBe('js-sdk@4.3.0');
    expect(out.auditMetadata).toEqual({ anything: { nested: [1] } });
    expect(parse({ redactPII: true }).redactPII).toBe(true);
  });
});

describe('scrapeRequestSchema limits', () => {
  it('requires an http(s) url', () => {
    expect(scrapeRequestSchema.safeParse({}).success).toBe(false);
    expect(paths({ url: 'ftp://example.com' })).toEqual(['url']);
    expect(paths({ url: 'http://' })).toEqual(['url']);
    expect(parse({ url: 'http://example.com' }).url).toBe('http://example.com');
  });

  it('bounds timeout to 1000..300000 integers', () => {
    expect(paths({ timeout: 999 })).toEqual(['timeout']);
    expect(paths({ timeout: 300001 })).toEqual(['timeout']);
    expect(paths({ timeout: 1500.5 })).toEqual(['timeout']);
    expect(parse({ timeout: 1000 }).timeout).toBe(1000);
    expect(parse({ timeout: 300000 }).timeout).toBe(300000);
  });

  it('keeps waitFor at most half of timeout', () => {
    expect(parse({ waitFor: 30000 }).waitFor).toBe(30000);
    const found = issues({ waitFor: 30001 });
    expect(found).toEqual([expect.objectContaining({ path: 'waitFor', code: 'custom' })]);
    expect(found[0]?.message).toContain('half of timeout');
    expect(paths({ timeout: 10000, waitFor: 5001 })).toEqual(['waitFor']);
    expect(paths({ waitFor: -1 })).toEqual(['waitFor']);
  });

  it('caps waitFor plus wait actions at 60 s', () => {
    const base = { timeout: 120000, waitFor: 50000 };
    expect(parse({ ...base, actions: [{ type: 'wait', milliseconds: 10000 }] }).waitFor).toBe(50000);
    const found = issues({ ...base, actions: [{ type: 'wait', milliseconds: 10001 }] });
    expect(found).toEqual([expect.objectContaining({ path: 'actions' })]);
    expect(found[0]?.message).toContain('60000');
    expect(paths({ actions: [{ type: 'wait', milliseconds: 30000 }, { type: 'wait', milliseconds: 30001 }] })).toEqual([
      'actions',
    ]);
    expect(parse({ actions: [{ type: 'wait', selector: '#a' }], waitFor: 30000 }).actions).toHaveLength(1);
    expect(paths({ timeout: 200000, waitFor: 60001 })).toEqual(['waitFor']);
  });

  it('allows at most 50 actions', () => {
    const actions = (n: number) => Array.from({ length: n }, () => ({ type: 'scrape' }));
    expect(parse({ actions: actions(50) }).actions).toHaveLength(50);
    expect(paths({ actions: actions(51) })).toEqual(['actions']);
  });

  it('checks the country pattern', () => {
    expect(parse({ location: { country: 'DE' } }).location?.country).toBe('DE');
    for (const country of ['de', 'DEU', 'D', '1A']) expect(paths({ location: { country } })).toEqual(['location.country']);
  });

  it('bounds profile.name to 1..128 chars', () => {
    expect(parse({ profile: { name: 'x'.repeat(128) } }).profile?.name).toHaveLength(128);
    expect(paths({ profile: { name: '' } })).toEqual(['profile.name']);
    expect(paths({ profile: { name: 'x'.repeat(129) } })).toEqual(['profile.name']);
    expect(paths({ profile: {} })).toEqual(['profile.name']);
  });

  it('bounds parsers maxPages to 1..10000 and mode to the enum', () => {
    expect(parse({ parsers: [{ type: 'pdf', maxPages: 10000 }] }).parsers[0]?.maxPages).toBe(10000);
    expect(paths({ parsers: [{ type: 'pdf', maxPages: 0 }] })).toEqual(['parsers[0].maxPages']);
    expect(paths({ parsers: [{ type: 'pdf', maxPages: 10001 }] })).toEqual(['parsers[0].maxPages']);
    const mode = issues({ parsers: [{ type: 'pdf', mode: 'slow' }] });
    expect(mode.map((i) => i.path)).toEqual(['parsers[0]']);
    expect(mode[0]?.message).toMatch(/^mode: /);
    expect(paths({ parsers: ['docx'] })).toEqual(['parsers[0]']);
  });

  it('checks maxAge, minAge and proxy', () => {
    expect(paths({ maxAge: -1 })).toEqual(['maxAge']);
    expect(paths({ minAge: 0 })).toEqual(['minAge']);
    expect(parse({ minAge: 1 }).minAge).toBe(1);
    expect(paths({ proxy: 'fast' })).toEqual(['proxy']);
    expect(parse({ proxy: 'stealth' }).proxy).toBe('enhanced');
    expect(parse({ proxy: 'enhanced' }).proxy).toBe('enhanced');
  });

  it('rejects onlyCleanContent with zero data retention', () => {
    expect(paths({ onlyCleanContent: true, zeroDataRetention: true })).toEqual(['onlyCleanContent']);
    expect(paths({ onlyCleanContent: true, lockdown: true })).toEqual(['onlyCleanContent']);
    expect(parse({ onlyCleanContent: true }).onlyCleanContent).toBe(true);
  });

  it('checks headers values are strings', () => {
    expect(paths({ headers: { a: 1 } })).toEqual(['headers.a']);
  });
});

describe('unknown keys', () => {
  it('names an unknown key at the top level', () => {
    const found = issues({ foo: 1 });
    expect(found).toEqual([{ path: 'foo', code: 'unrecognized_keys', message: 'Unrecognized key: "foo"' }]);
    expect(describeValidationIssues(found)).toBe('Bad Request: foo: Unrecognized key: "foo"');
  });

  it('names unknown keys inside location, actions, profile and formats', () => {
    expect(issues({ location: { country: 'US', city: 'x' } })).toEqual([
      { path: 'location.city', code: 'unrecognized_keys', message: 'Unrecognized key: "city"' },
    ]);
    expect(issues({ actions: [{ type: 'click', selector: 'a', button: 'left' }] })).toEqual([
      { path: 'actions[0].button', code: 'unrecognized_keys', message: 'Unrecognized key: "button"' },
    ]);
    expect(paths({ profile: { name: 'a', shared: true } })).toEqual(['profile.shared']);
    expect(paths({ formats: [{ type: 'json', prompt: 'p', model: 'x' }] })).toEqual(['formats[0].model']);
    expect(paths({ redactPII: { mode: 'mask', level: 2 } })).toContain('redactPII.level');
  });

  it('splits several unknown keys into one issue each', () => {
    expect(paths({ a: 1, b: 2 })).toEqual(['a', 'b']);
  });

  it('rejects v1-only options', () => {
    expect(paths({ parsePDF: true })).toEqual(['parsePDF']);
    expect(paths({ jsonOptions: {} })).toEqual(['jsonOptions']);
  });
});

describe('scrape options without url', () => {
  it('rejects url and applies the same rules', () => {
    expect(scrapeOptionsSchema.safeParse({ url: URL }).success).toBe(false);
    expect(scrapeOptionsSchema.safeParse({ waitFor: 40000 }).success).toBe(false);
    const out = scrapeOptionsSchema.parse({});
    expect(out.maxAge).toBe(172800000);
    expect(out).not.toHaveProperty('zeroDataRetention');
  });

  it('can be extended for batch bodies', () => {
    const batch = scrapeOptionsObjectSchema.extend({ urls: scrapeOptionsObjectSchema.shape.includeTags.unwrap().min(1) });
    expect(batch.parse({ urls: ['https://a.example'] }).timeout).toBe(60000);
  });
});

describe('url without a scheme', () => {
  it('gets http:// like clients of this API expect; other schemes stay rejected', () => {
    expect(scrapeRequestSchema.parse({ url: 'example.com/page' }).url).toBe('http://example.com/page');
    expect(scrapeRequestSchema.safeParse({ url: 'ftp://example.com' }).success).toBe(false);
    expect(scrapeRequestSchema.safeParse({ url: 'javascript:alert(1)' }).success).toBe(false);
  });
});

/**
 * A job's request is the parsed request: a worker that runs it at once uses it as it is (JobRun.fresh),
 * one that takes it from the queue (a retry, a deferral, another worker) parses its JSON again. Both
 * must run the same request, so every parse is its own parse after a JSON round trip. (A crawl's page
 * requests, built by its coordinator: crawl-coordinator.test.ts.)
 */
describe('a parsed request read back from a queued job', () => {
  const bodies: Record<string, unknown>[] = [
    {},
    { url: 'example.com/no-scheme' },
    { url: 'http://EXAMPLE.com:80/a b?c=d#e' },
    { url: 'https://bücher.example/ä' },
    { formats: ['markdown', 'html', 'rawHtml', 'links', 'summary', 'images', 'branding', 'changeTracking', 'screenshot'] },
    { formats: ['rawBase64'] },
    { formats: ['audio', 'video', 'menu', 'product'] },
    { formats: [{ type: 'screenshot', fullPage: true, quality: 50, viewport: { width: 800, height: 600 } }] },
    { formats: [{ type: 'json', prompt: 'p', schema: { type: 'object', properties: { a: { type: 'string' } } } }] },
    { formats: ['markdown', { type: 'changeTracking', modes: ['git-diff', 'json'], schema: { type: 'object' }, prompt: 'p', tag: 't' }] },
    { formats: [{ type: 'question', question: 'q?' }, { type: 'highlights', query: 'q' }] },
    { formats: [{ type: 'attributes', selectors: [{ selector: 'a', attribute: 'href' }] }] },
    { headers: { cookie: 'a=b', 'User-Agent': 'x' }, includeTags: ['main'], excludeTags: ['nav'] },
    { onlyMainContent: false, onlyCleanContent: true, mobile: true, skipTlsVerification: false, removeBase64Images: false, blockAds: false },
    { timeout: 1000 }, { timeout: 120000, waitFor: 50000 },
    { proxy: 'stealth' }, { proxy: 'basic' },
    { location: { languages: ['de-DE'] } }, { location: { country: 'DE', languages: ['de'] } },
    { maxAge: 0 }, { minAge: 1 }, { lockdown: true }, { lockdown: true, maxAge: 3 }, { storeInCache: false },
    { parsers: ['pdf'] }, { parsers: [] }, { parsers: [{ type: 'pdf', mode: 'ocr', maxPages: 2 }] },
    {
      actions: [
        { type: 'wait', milliseconds: 100 }, { type: 'wait', selector: '#a' }, { type: 'click', selector: 'a', all: true },
        { type: 'write', text: 'x' }, { type: 'press', key: 'Enter' }, { type: 'scroll', direction: 'down' }, { type: 'scrape' },
        { type: 'screenshot', fullPage: true }, { type: 'executeJavascript', script: '1' }, { type: 'pdf', format: 'A4', landscape: true, scale: 0.5 },
      ],
    },
    { profile: { name: 'p' } }, { profile: { name: 'p', saveChanges: false } },
    { redactPII: true }, { redactPII: { mode: 'mask', entities: ['EMAIL'], replacement: '[x]' } },
    { auditMetadata: { a: 1, b: ['x'] }, threatProtection: { riskScoreThreshold: 50, blockedTlds: ['zip'] } },
    { origin: 'js-sdk@4.3.0', integration: 'n8n', fastMode: true, useMock: 'x', domainTools: true, toolDetail: 'full' },
    { zeroDataRetention: true },
  ];
  const readBack = (parsed: unknown) => scrapeRequestSchema.parse(JSON.parse(JSON.stringify(parsed)));

  it.each(bodies.map((b) => [JSON.stringify(b), b] as const))('scrape %s', (_label, body) => {
    const parsed = parse(body);
    expect(readBack(parsed)).toEqual(JSON.parse(JSON.stringify(parsed)));
  });
});
