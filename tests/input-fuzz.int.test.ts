import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { ADMIN_KEY, BOOT_KEY, TestCluster } from './helpers/cluster.js';

/**
 * Property: whatever a client sends to any route (path, query, body), the gateway answers 2xx or 4xx
 * (never 5xx, never a dropped connection), and is alive afterwards.
 *
 * The gateway runs alone against a real Redis, with no worker: an input that passes validation is
 * admitted and queued but never fetched, so no generated URL reaches the network. Sync routes (scrape,
 * map, parse) would then wait for their whole timeout: their bodies get the smallest `timeout` (1 s,
 * answered 408 SCRAPE_TIMEOUT) unless the generated one is invalid already.
 */

jest.setTimeout(240_000);

/** Fixed seed: the same inputs on every run (a failure prints its input). */
const SEED = 20261127;
/** Inputs per route. */
const RUNS = 250;
/** Requests in flight at once. */
const PARALLEL = 8;
/** For a sync route: most of its valid inputs wait out their 1 s timeout, idle (no worker runs them). */
const SYNC_PARALLEL = 32;

type KeyKind = 'api' | 'admin' | 'none';
interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  /** Express pattern: `:name` parameters, `*name` wildcard. */
  path: string;
  key: KeyKind;
  /** `raw`: any bytes with any content type (an upload PUT). */
  body?: 'json' | 'multipart' | 'raw';
  /** Body fields the schema knows, to reach deeper than "unknown key". */
  fields?: readonly string[];
  /** A valid body the generator mutates. */
  base?: Record<string, unknown>;
  query?: readonly string[];
  /** Waits for a worker's answer: bodies get the shortest timeout. */
  sync?: boolean;
}

const URL_OK = 'http://127.0.0.1:9/page';
const SCRAPE_FIELDS = [
  'url', 'formats', 'headers', 'includeTags', 'excludeTags', 'onlyMainContent', 'onlyCleanContent', 'timeout', 'waitFor', 'mobile',
  'skipTlsVerification', 'removeBase64Images', 'blockAds', 'proxy', 'location', 'maxAge', 'minAge', 'lockdown', 'storeInCache', 'parsers',
  'actions', 'profile', 'redactPII', 'auditMetadata', 'threatProtection', 'zeroDataRetention', 'origin', 'integration',
] as const;
const CRAWL_FIELDS = [
  'url', 'prompt', 'excludePaths', 'includePaths', 'maxDiscoveryDepth', 'sitemap', 'ignoreQueryParameters', 'limit', 'crawlEntireDomain',
  'allowExternalLinks', 'allowSubdomains', 'delay', 'maxConcurrency', 'webhook', 'scrapeOptions', 'zeroDataRetention', 'regexOnFullURL',
] as const;
const V1_CRAWL_FIELDS = [
  'url', 'excludePaths', 'includePaths', 'maxDepth', 'maxDiscoveryDepth', 'ignoreSitemap', 'ignoreQueryParameters', 'limit', 'allowBackwardLinks',
  'crawlEntireDomain', 'allowExternalLinks', 'allowSubdomains', 'delay', 'maxConcurrency', 'webhook', 'scrapeOptions', 'zeroDataRetention', 'regexOnFullURL',
] as const;
const BATCH_FIELDS = ['urls', 'webhook', 'maxConcurrency', 'ignoreInvalidURLs', 'zeroDataRetention', ...SCRAPE_FIELDS.filter((f) => f !== 'url')] as const;
const MAP_FIELDS = ['url', 'search', 'sitemap', 'includeSubdomains', 'ignoreQueryParameters', 'limit', 'timeout', 'location', 'headers', 'auditMetadata'] as const;
const V1_SCRAPE_FIELDS = [
  'url', 'formats', 'jsonOptions', 'extract', 'changeTrackingOptions', 'parsePDF', 'proxy', 'maxAge', 'headers', 'includeTags', 'excludeTags',
  'onlyMainContent', 'waitFor', 'timeout', 'location', 'mobile', 'skipTlsVerification', 'removeBase64Images', 'blockAds', 'storeInCache',
  'actions', 'zeroDataRetention', 'origin', 'integration',
] as const;
const V1_BATCH_FIELDS = ['urls', 'webhook', 'maxConcurrency', 'ignoreInvalidURLs', ...V1_SCRAPE_FIELDS.filter((f) => f !== 'url')] as const;
const SEARCH_FIELDS = ['query', 'limit', 'sources', 'categories', 'includeDomains', 'excludeDomains', 'tbs', 'lang', 'country', 'location', 'timeout', 'ignoreInvalidURLs', 'scrapeOptions'] as const;
const V1_SEARCH_FIELDS = ['query', 'limit', 'tbs', 'lang', 'country', 'location', 'timeout', 'scrapeOptions'] as const;
const V1_MAP_FIELDS = ['url', 'search', 'ignoreSitemap', 'sitemapOnly', 'includeSubdomains', 'limit', 'timeout', 'useIndex', 'location'] as const;
const MONITOR_FIELDS = ['name', 'schedule', 'webhook', 'notification', 'targets', 'retentionDays', 'goal', 'judgeEnabled', 'status'] as const;
const TEAM_FIELDS = ['name', 'concurrency', 'ratePerMinute', 'credits', 'flags'] as const;
const MONITOR_BASE = { name: 'fuzz', schedule: { cron: '0 3 * * *' }, targets: [{ type: 'scrape', urls: [URL_OK] }] };

/** Every route of the gateway; the first test checks this list against the app's router. */
const ROUTES: RouteSpec[] = [
  { method: 'GET', path: '/health/live', key: 'none' },
  { method: 'GET', path: '/health/ready', key: 'none' },
  { method: 'GET', path: '/metrics', key: 'none' },
  { method: 'GET', path: '/v2/openapi.json', key: 'none' },
  { method: 'GET', path: '/v2/blobs/*key', key: 'none', query: ['expires', 'signature'] },
  { method: 'POST', path: '/v2/scrape', key: 'api', body: 'json', fields: SCRAPE_FIELDS, base: { url: URL_OK }, sync: true },
  { method: 'GET', path: '/v2/scrape/:id', key: 'api' },
  { method: 'POST', path: '/v2/parse', key: 'api', body: 'multipart', fields: SCRAPE_FIELDS.filter((f) => f !== 'url'), base: {}, sync: true },
  // The JSON form of the same route (a file uploaded through an upload URL); an unknown ref never runs a parse.
  { method: 'POST', path: '/v2/parse', key: 'api', body: 'json', fields: ['uploadRef', 'options'], base: { uploadRef: '7d4c8a1e-5b7f-4c1a-9e2d-3f6b8a9c0d1e', options: {} } },
  { method: 'POST', path: '/v2/parse/upload-url', key: 'api', body: 'json', fields: ['filename', 'contentType'], base: { filename: 'a.pdf' } },
  { method: 'PUT', path: '/v2/parse/uploads/:ref', key: 'none', body: 'raw', query: ['token'] },
  { method: 'POST', path: '/v2/batch/scrape', key: 'api', body: 'json', fields: BATCH_FIELDS, base: { urls: [URL_OK] } },
  { method: 'GET', path: '/v2/batch/scrape/:id', key: 'api', query: ['skip', 'limit'] },
  { method: 'GET', path: '/v2/batch/scrape/:id/errors', key: 'api' },
  { method: 'DELETE', path: '/v2/batch/scrape/:id', key: 'api' },
  { method: 'POST', path: '/v2/crawl', key: 'api', body: 'json', fields: CRAWL_FIELDS, base: { url: URL_OK } },
  { method: 'POST', path: '/v2/crawl/params-preview', key: 'api', body: 'json', fields: ['url', 'prompt'], base: { url: URL_OK } },
  { method: 'GET', path: '/v2/crawl/active', key: 'api' },
  { method: 'GET', path: '/v2/crawl/ongoing', key: 'api' },
  { method: 'GET', path: '/v1/crawl/active', key: 'api' },
  { method: 'GET', path: '/v1/crawl/ongoing', key: 'api' },
  { method: 'POST', path: '/v1/crawl', key: 'api', body: 'json', fields: V1_CRAWL_FIELDS, base: { url: URL_OK } },
  { method: 'GET', path: '/v1/crawl/:id', key: 'api', query: ['skip', 'limit'] },
  { method: 'GET', path: '/v1/crawl/:id/errors', key: 'api' },
  { method: 'DELETE', path: '/v1/crawl/:id/errors', key: 'api' },
  { method: 'DELETE', path: '/v1/crawl/:id', key: 'api' },
  { method: 'GET', path: '/v2/crawl/:id', key: 'api', query: ['skip', 'limit'] },
  { method: 'GET', path: '/v2/crawl/:id/errors', key: 'api' },
  { method: 'DELETE', path: '/v2/crawl/:id', key: 'api' },
  { method: 'POST', path: '/v2/map', key: 'api', body: 'json', fields: MAP_FIELDS, base: { url: URL_OK }, sync: true },
  { method: 'POST', path: '/v2/search', key: 'api', body: 'json', fields: SEARCH_FIELDS, base: { query: 'fuzz' }, sync: true },
  { method: 'POST', path: '/v2/monitor', key: 'api', body: 'json', fields: MONITOR_FIELDS, base: MONITOR_BASE },
  { method: 'GET', path: '/v2/monitor', key: 'api', query: ['limit', 'offset'] },
  { method: 'GET', path: '/v2/monitor/:id', key: 'api' },
  { method: 'PATCH', path: '/v2/monitor/:id', key: 'api', body: 'json', fields: MONITOR_FIELDS, base: { name: 'renamed' } },
  { method: 'DELETE', path: '/v2/monitor/:id', key: 'api' },
  { method: 'POST', path: '/v2/monitor/:id/run', key: 'api', body: 'json', fields: [], base: {} },
  { method: 'GET', path: '/v2/monitor/:id/checks', key: 'api', query: ['limit', 'offset'] },
  { method: 'GET', path: '/v2/monitor/:id/checks/:checkId', key: 'api', query: ['skip', 'limit', 'status'] },
  { method: 'POST', path: '/v2/extract', key: 'api', body: 'json', fields: ['urls', 'prompt', 'schema', 'systemPrompt', 'showSources', 'ignoreInvalidURLs', 'allowExternalLinks', 'enableWebSearch', 'scrapeOptions', 'webhook', 'zeroDataRetention'], base: { urls: [URL_OK], prompt: 'fuzz' } },
  { method: 'GET', path: '/v2/extract/:id', key: 'api' },
  { method: 'DELETE', path: '/v2/extract/:id', key: 'api' },
  { method: 'GET', path: '/v2/team/credit-usage', key: 'api' },
  { method: 'GET', path: '/v2/team/token-usage', key: 'api' },
  { method: 'GET', path: '/v2/team/token-usage/historical', key: 'api', query: ['byApiKey'] },
  { method: 'GET', path: '/v2/team/credit-usage/historical', key: 'api', query: ['byApiKey'] },
  { method: 'GET', path: '/v2/team/queue-status', key: 'api' },
  { method: 'GET', path: '/v2/concurrency-check', key: 'api' },
  { method: 'POST', path: '/v1/scrape', key: 'api', body: 'json', fields: V1_SCRAPE_FIELDS, base: { url: URL_OK }, sync: true },
  { method: 'GET', path: '/v1/scrape/:id', key: 'api' },
  { method: 'POST', path: '/v1/batch/scrape', key: 'api', body: 'json', fields: V1_BATCH_FIELDS, base: { urls: [URL_OK] } },
  { method: 'GET', path: '/v1/batch/scrape/:id', key: 'api', query: ['skip', 'limit'] },
  { method: 'GET', path: '/v1/batch/scrape/:id/errors', key: 'api' },
  { method: 'DELETE', path: '/v1/batch/scrape/:id/errors', key: 'api' },
  { method: 'DELETE', path: '/v1/batch/scrape/:id', key: 'api' },
  { method: 'POST', path: '/v1/map', key: 'api', body: 'json', fields: V1_MAP_FIELDS, base: { url: URL_OK }, sync: true },
  { method: 'POST', path: '/v1/search', key: 'api', body: 'json', fields: V1_SEARCH_FIELDS, base: { query: 'fuzz' }, sync: true },
  { method: 'POST', path: '/v1/extract', key: 'api', body: 'json', fields: ['urls', 'prompt', 'schema', 'systemPrompt', 'includeSubdomains', 'scrapeOptions'], base: { urls: [URL_OK], prompt: 'fuzz' } },
  { method: 'GET', path: '/v1/extract/:id', key: 'api' },
  { method: 'GET', path: '/v1/team/credit-usage', key: 'api' },
  { method: 'GET', path: '/v1/team/credit-usage/historical', key: 'api', query: ['byApiKey'] },
  { method: 'GET', path: '/v1/team/token-usage', key: 'api' },
  { method: 'GET', path: '/v1/team/token-usage/historical', key: 'api', query: ['byApiKey'] },
  { method: 'GET', path: '/v1/team/queue-status', key: 'api' },
  { method: 'GET', path: '/v1/concurrency-check', key: 'api' },
  { method: 'POST', path: '/admin/teams', key: 'admin', body: 'json', fields: TEAM_FIELDS, base: { name: 'fuzz' } },
  { method: 'GET', path: '/admin/teams', key: 'admin' },
  { method: 'GET', path: '/admin/teams/:id', key: 'admin' },
  { method: 'PATCH', path: '/admin/teams/:id', key: 'admin', body: 'json', fields: TEAM_FIELDS, base: { name: 'renamed' } },
  { method: 'POST', path: '/admin/teams/:id/keys', key: 'admin', body: 'json', fields: ['name'], base: {} },
  { method: 'GET', path: '/admin/teams/:id/keys', key: 'admin' },
  { method: 'DELETE', path: '/admin/keys/:key', key: 'admin' },
  { method: 'GET', path: '/admin/queues/*rest', key: 'admin' },
];

let cluster: TestCluster;
let fuzzKey: string;
/** Ids that exist, so generated requests also reach past the "not found" answers. */
const known: Record<string, string[]> = { id: [], checkId: [], key: [], ref: [], token: [] };

beforeAll(async () => {
  cluster = await TestCluster.start({ TRAWL_DOCUMENTS_ENABLED: 'true', TRAWL_SYNC_GRACE_MS: '0' }, { worker: false });
  // Its own team, with room enough that rate and concurrency limits answer rarely.
  const team = await cluster.admin('POST', '/admin/teams', { name: 'fuzz', ratePerMinute: 1_000_000, concurrency: 1000 });
  fuzzKey = (await cluster.admin('POST', `/admin/teams/${team.body.id}/keys`, {})).body.key as string;
  // A team the admin routes may change at will (never the fuzzing one).
  const victim = await cluster.admin('POST', '/admin/teams', { name: 'victim' });
  const batch = await cluster.call('POST', '/v2/batch/scrape', { key: fuzzKey, body: { urls: [URL_OK] } });
  const crawl = await cluster.call('POST', '/v2/crawl', { key: fuzzKey, body: { url: URL_OK } });
  const monitor = await cluster.call('POST', '/v2/monitor', { key: fuzzKey, body: MONITOR_BASE });
  expect([batch.status, crawl.status, monitor.status]).toEqual([200, 200, 200]);
  known.id!.push(victim.body.id as string, batch.body.id as string, crawl.body.id as string, monitor.body.data.id as string);
  known.key!.push('tr-not-a-key');
  // An issued upload URL, so generated PUTs reach past "no such upload".
  const upload = await cluster.call('POST', '/v2/parse/upload-url', { key: fuzzKey, body: { filename: 'fuzz.pdf' } });
  expect(upload.status).toBe(200);
  known.ref!.push(upload.body.uploadRef as string);
  known.token!.push(new URL(upload.body.uploadUrl as string).searchParams.get('token')!);
});

afterAll(async () => {
  await cluster?.stop();
});

// ---------- generators ----------

const MALFORMED_ESCAPES = ['%', '%E0%A4%A', '%ZZ', '%C3', '%FF%FE', '%00', '%2e%2e', '..', '.', '%0D%0A'];
const SPECIAL_STRINGS = ['', ' ', '\r\n', '\u0000', 'http://', 'http://127.0.0.1:9/', 'ftp://x/', '127.0.0.1', '\ud800', 'x'.repeat(9000), '__proto__', 'constructor'];

const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 2, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
);
/** Values that often pass a field's schema: the mutations then reach past the first validation. */
const plausible: fc.Arbitrary<unknown> = fc.oneof(
  fc.boolean(),
  fc.integer({ min: 0, max: 5000 }),
  fc.constantFrom(URL_OK, [URL_OK], 'markdown', ['markdown', 'links'], [{ type: 'json', prompt: 'x' }], ['html'], { country: 'US' }, 'basic',
    'auto', 'skip', 'include', [], {}, { 'X-A': 'b' }, { a: 1 }, '0 4 * * *', { cron: '0 4 * * *' }, 'paused', 'active', 30,
    [{ type: 'wait', milliseconds: 10 }], [{ type: 'scrape', urls: [URL_OK] }], { url: 'http://127.0.0.1:9/hook', metadata: { a: 1 } }),
);
const json: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: plausible },
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 2, arbitrary: text },
  { weight: 1, arbitrary: fc.constantFrom(-1, 0, 1e308, 1.5, 2 ** 53, 300_001, true, null, [], {}) },
);

const pathValue = (name: string) => fc.oneof(
  { weight: 3, arbitrary: fc.uuid().map(encodeURIComponent) },
  { weight: 2, arbitrary: fc.constantFrom(...(known[name]?.length ? known[name]! : ['x'])).map(encodeURIComponent) },
  { weight: 3, arbitrary: text.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ''))) },
  { weight: 2, arbitrary: fc.constantFrom(...MALFORMED_ESCAPES) },
);

/** A path for the pattern: each parameter generated, sometimes an extra segment or slash. */
function pathArb(pattern: string): fc.Arbitrary<string> {
  const parts = pattern.split('/').map((seg) => {
    if (seg.startsWith(':')) return pathValue(seg.slice(1));
    if (seg.startsWith('*')) return fc.array(pathValue('key'), { minLength: 1, maxLength: 4 }).map((a) => a.join('/'));
    return fc.constant(seg);
  });
  const tail = fc.oneof({ weight: 12, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom('/', '/x', '//', '/%ZZ') });
  return fc.tuple(fc.tuple(...parts), tail).map(([segs, end]) => segs.join('/') + end);
}

function queryArb(keys: readonly string[]): fc.Arbitrary<string> {
  const key = keys.length ? fc.oneof(fc.constantFrom(...keys), text) : text;
  // Known secrets (an upload URL's token) too, so some requests pass the credential check.
  const value = fc.oneof(text, fc.integer().map(String), fc.constantFrom('-1', '1e9', 'NaN', '0x10', '1.5', ...(known.token ?? [])));
  return fc.tuple(
    fc.array(fc.tuple(key, value), { maxLength: 4 }),
    fc.constantFrom('', '', '', '&%ZZ=%', '&a[b][c]=1', '&skip=1&skip=2'),
  ).map(([pairs, raw]) => {
    const q = pairs.map(([k, v]) => `${encodeURIComponent(k.replace(/[\ud800-\udfff]/g, ''))}=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, ''))}`).join('&') + raw;
    return q ? `?${q}` : '';
  });
}

/** `{"a":{"a":...}}` JSON text thousands of levels deep. */
const deepText = fc.integer({ min: 50, max: 5000 }).map((d) => `{"x":${'{"a":'.repeat(d)}1${'}'.repeat(d)}}`);

/** Body text and its content type: a mutated valid body, any JSON, deep JSON, or not JSON at all. */
function jsonBodyArb(spec: RouteSpec): fc.Arbitrary<{ text: string; contentType: string }> {
  const fields = spec.fields ?? [];
  const mutated = fc.tuple(
    fc.dictionary(fields.length ? fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...fields) }, { weight: 1, arbitrary: text }) : text, json, { maxKeys: 3 }),
    fc.constantFrom(true, true, true, false),
  ).map(([extra, withBase]) => (withBase ? { ...spec.base, ...extra } : extra));
  const value = fc.oneof({ weight: 6, arbitrary: mutated }, { weight: 1, arbitrary: json });
  const contentType = fc.constantFrom('application/json', 'application/json', 'application/json', 'text/plain', 'application/json; charset=utf-16', 'application/json; charset=bogus', '');
  return fc.oneof(
    { weight: 8, arbitrary: fc.tuple(value, contentType).map(([v, ct]) => ({ text: JSON.stringify(spec.sync ? withShortTimeout(v) : v) ?? 'null', contentType: ct })) },
    { weight: 1, arbitrary: deepText.map((t) => ({ text: t, contentType: 'application/json' })) },
    { weight: 1, arbitrary: text.map((t) => ({ text: t, contentType: 'application/json' })) },
  );
}

/** Sync bodies: the shortest timeout, unless the generated one is already invalid. */
function withShortTimeout(v: unknown): unknown {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return v;
  const t = (v as { timeout?: unknown }).timeout;
  return t === undefined || (typeof t === 'number' && t > 1000) ? { ...v, timeout: 1000 } : v;
}

const BOUNDARY = 'fuzzboundary';
/** Raw upload bytes with a content type, sometimes none. */
const rawBodyArb: fc.Arbitrary<{ text: string; contentType: string }> = fc.tuple(
  fc.uint8Array({ maxLength: 300 }),
  fc.constantFrom('application/pdf', 'application/octet-stream', 'text/csv; charset=utf-8', 'multipart/form-data', 'application/json', ''),
).map(([bytes, contentType]) => ({ text: Buffer.from(bytes).toString('latin1'), contentType }));

/** A multipart parse body: options and file parts, sometimes cut short or mangled. */
function multipartArb(spec: RouteSpec): fc.Arbitrary<{ text: string; contentType: string }> {
  return fc.tuple(
    jsonBodyArb(spec),
    fc.uint8Array({ maxLength: 200 }),
    fc.constantFrom('file', 'file', 'options', 'other'),
    fc.constantFrom('whole', 'whole', 'no-closing-boundary', 'cut-in-headers', 'no-file', 'garbage'),
    fc.constantFrom(`multipart/form-data; boundary=${BOUNDARY}`, `multipart/form-data; boundary=${BOUNDARY}`, 'multipart/form-data', 'multipart/form-data; boundary='),
  ).map(([options, bytes, fileName, shape, contentType]) => {
    const opts = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="options"\r\n\r\n${options.text}\r\n`;
    const file = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${fileName}"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n${Buffer.from(bytes).toString('latin1')}`;
    const text = shape === 'whole' ? `${opts}${file}\r\n--${BOUNDARY}--\r\n`
      : shape === 'no-closing-boundary' ? `${opts}${file}`
        : shape === 'cut-in-headers' ? `${opts}--${BOUNDARY}\r\nContent-Disposition: form-da`
          : shape === 'no-file' ? `${opts}--${BOUNDARY}--\r\n`
            : `--${BOUNDARY}\r\n\u0000\u0001:::\r\n\r\n${Buffer.from(bytes).toString('latin1')}`;
    return { text, contentType };
  });
}

interface Input {
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

function inputArb(spec: RouteSpec): fc.Arbitrary<Input> {
  const key = fc.constantFrom<'right' | 'none' | 'wrong'>('right', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'none', 'wrong');
  const body = spec.body === 'json' ? jsonBodyArb(spec) : spec.body === 'multipart' ? multipartArb(spec) : spec.body === 'raw' ? rawBodyArb : fc.constant(undefined);
  const encoding = fc.constantFrom('identity', 'identity', 'identity', 'identity', 'gzip', 'gzip-lie', 'br-lie', 'bogus');
  return fc.tuple(pathArb(spec.path), queryArb(spec.query ?? []), key, body, encoding).map(([path, query, k, b, enc]) => {
    const headers: Record<string, string> = {};
    const secret = spec.key === 'admin' ? ADMIN_KEY : spec.key === 'api' ? fuzzKey : undefined;
    if (secret && k === 'right') headers.authorization = `Bearer ${secret}`;
    if (k === 'wrong') headers.authorization = 'Bearer tr-wrong';
    if (!b) return { path: path + query, headers };
    let bytes = Buffer.from(b.text, 'latin1');
    if (spec.body === 'json') bytes = Buffer.from(b.text, 'utf8');
    if (b.contentType) headers['content-type'] = b.contentType;
    if (enc === 'gzip') bytes = gzipSync(bytes);
    if (enc !== 'identity') headers['content-encoding'] = enc.replace('-lie', '');
    return { path: path + query, headers, body: bytes };
  });
}

// ---------- sending ----------

interface Outcome { status: number; error?: string; body: string }

function send(port: number, method: string, input: Input): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path: input.path, headers: input.headers, agent: false }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8').slice(0, 300) }));
      res.on('error', (err) => resolve({ status: res.statusCode ?? 0, error: `response: ${err.message}`, body: '' }));
    });
    req.on('error', (err) => resolve({ status: 0, error: err.message, body: '' }));
    req.end(input.body);
  });
}

async function pool<T>(items: readonly T[], parallel: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < items.length) await fn(items[next++]!);
  }));
}

// ---------- tests ----------

/** `METHOD /path` of every route in the app's router, nested routers included. */
function appRoutes(): string[] {
  type Layer = { route?: { path: string | string[]; methods: Record<string, boolean> }; handle?: { stack?: Layer[] } };
  const app = cluster.api.server.listeners('request')[0] as unknown as { router: { stack: Layer[] } };
  const out: string[] = [];
  const walk = (stack: Layer[]) => {
    for (const layer of stack) {
      // A route may serve several paths (the v1 and v2 spellings of one handler).
      if (layer.route) for (const m of Object.keys(layer.route.methods)) for (const p of [layer.route.path].flat()) out.push(`${m.toUpperCase()} ${p}`);
      else if (layer.handle?.stack) walk(layer.handle.stack);
    }
  };
  walk(app.router.stack);
  return out;
}

describe('fuzzing every route', () => {
  it('covers every route of the app', () => {
    const listed = new Set(ROUTES.map((r) => `${r.method} ${r.path}`));
    // The queue UI is a third-party router: its own routes are fuzzed through the wildcard entry.
    const missing = appRoutes().filter((r) => !listed.has(r) && !r.includes('/admin/queues') && !/^\w+ \/(api|static)\b|^\w+ \/$|^\w+ \/\*/.test(r));
    expect(missing).toEqual([]);
  });

  it('answers 2xx or 4xx to generated paths, queries and bodies, and stays alive', async () => {
    const port = Number(new URL(cluster.api.url).port);
    const failures: string[] = [];
    let sent = 0;
    for (const [i, spec] of ROUTES.entries()) {
      const inputs = fc.sample(inputArb(spec), { seed: SEED + i, numRuns: RUNS });
      await pool(inputs, spec.sync ? SYNC_PARALLEL : PARALLEL, async (input) => {
        const out = await send(port, spec.method, input);
        sent++;
        if (out.error || out.status < 200 || out.status >= 500) {
          failures.push(`${spec.method} ${input.path} ${JSON.stringify(input.headers)} body=${JSON.stringify(input.body?.toString('latin1').slice(0, 200))} -> ${out.status} ${out.error ?? ''} ${out.body}`);
        }
      });
    }
    expect(sent).toBe(ROUTES.length * RUNS);
    expect(failures.slice(0, 10)).toEqual([]);
    // Alive: liveness, and a valid scrape is still admitted (no worker: it is queued, waits its
    // 1 s timeout and answers 408 SCRAPE_TIMEOUT; a batch is accepted at once).
    expect((await cluster.call('GET', '/health/live')).status).toBe(200);
    const scrape = await cluster.call('POST', '/v2/scrape', { key: BOOT_KEY, body: { url: URL_OK, timeout: 1000 } });
    expect([scrape.status, scrape.body.code]).toEqual([408, 'SCRAPE_TIMEOUT']);
    const batch = await cluster.call('POST', '/v2/batch/scrape', { key: BOOT_KEY, body: { urls: [URL_OK] } });
    expect(batch.status).toBe(200);
  });
});
