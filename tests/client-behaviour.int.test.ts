import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { UNLIMITED_USAGE, creditUsageHistoricalResponseSchema, creditUsageResponseSchema } from '@trawl/api-schema';
import { CreditLedger, RedisKeys } from '@trawl/queue';
import { TestCluster } from './helpers/cluster.js';

/**
 * Behaviour the official clients depend on (issue 19): target failures answer 500 with their code
 * (the SDK retries 502 by itself), the hosted service's validation texts, ROUTE_NOT_FOUND and
 * `GET /`, unlimited credits as a number and the credit history.
 */
let cluster: TestCluster;
let ledger: CreditLedger;
/** A pass-through proxy in front of the API that counts the requests it forwards. */
let counter: Server;
let hits: string[] = [];

beforeAll(async () => {
  cluster = await TestCluster.start({ TRAWL_REDIS_PREFIX: 'cb' });
  ledger = new CreditLedger(cluster.redis, new RedisKeys('cb'));
  const api = new URL(cluster.api.url);
  counter = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    const upstream = httpRequest({ host: api.hostname, port: api.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    req.pipe(upstream);
  });
  counter.listen(0, '127.0.0.1');
  await once(counter, 'listening');
});
afterAll(async () => {
  counter?.close();
  await cluster?.stop();
});

/** A local port nothing listens on: bound, then released. */
async function deadPort(): Promise<number> {
  const s = createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address() as AddressInfo;
  s.close();
  await once(s, 'close');
  return port;
}

describe('target failures answer 500 with their code', () => {
  it('the official 4.x SDK scraping a dead local port: one request, SCRAPE_CONNECTION_REFUSED at once', async () => {
    const team = await cluster.team();
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const fc = new Firecrawl({ apiKey: team.key, apiUrl: `http://127.0.0.1:${(counter.address() as AddressInfo).port}` });
    const url = `http://127.0.0.1:${await deadPort()}/`;
    hits = [];
    const failure = await fc.scrape(url, { formats: ['markdown'] }).then(() => null, (e: unknown) => e);
    expect(failure).toMatchObject({ status: 500, code: 'SCRAPE_CONNECTION_REFUSED' });
    // A 502 would have been sent three times (the SDK's own retries, 0.5 s then 1 s apart).
    expect(hits).toEqual(['POST /v2/scrape']);
    // The metrics mark it a target failure: alerts on server errors leave it out.
    const metrics = (await cluster.call('GET', '/metrics', { key: null })).body.text as string;
    const line = metrics.split('\n').find((l) => l.startsWith('trawl_http_request_duration_seconds_count{') && l.includes('route="/v2/scrape"') && l.includes('status="500"'));
    expect(line).toContain('fault="target"');
  });
});

describe('validation texts', () => {
  const scrape = (body: unknown) => cluster.call('POST', '/v2/scrape', { body });

  it('"Bad Request" for an ordinary failure, the issues in details', async () => {
    const r = await scrape({ url: 'https://example.com', mobile: 'yes' });
    expect(r).toMatchObject({ status: 400, body: { success: false, code: 'BAD_REQUEST', error: 'Bad Request', details: { issues: [{ path: 'mobile' }] } } });
  });
  it('the fixed unknown-key text; the key is named in details', async () => {
    const r = await scrape({ url: 'https://example.com', bogus: 1 });
    expect(r).toMatchObject({
      status: 400,
      body: { code: 'BAD_REQUEST', error: 'Unrecognized key in body -- please review the v2 API documentation for request body changes', details: { issues: [{ path: 'bogus', code: 'unrecognized_keys' }] } },
    });
  });
  it('a custom rule\'s own message', async () => {
    const r = await scrape({ url: 'https://example.com', waitFor: 40_000, timeout: 60_000 });
    expect(r).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST', error: 'waitFor must not exceed half of timeout' } });
  });
  it('malformed JSON', async () => {
    const r = await cluster.call('POST', '/v2/scrape', { raw: '{"url": ' });
    expect(r).toMatchObject({ status: 400, body: { success: false, code: 'BAD_REQUEST_INVALID_JSON', error: 'Bad request, malformed JSON' } });
  });
  it.each(['not-a-valid-url', 'http://foo'])('%s: no public suffix and no IP', async (url) => {
    const r = await scrape({ url });
    expect(r).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST', error: 'URL must have a valid top-level domain or be an IP address' } });
    const crawl = await cluster.call('POST', '/v2/crawl', { body: { url } });
    expect(crawl).toMatchObject({ status: 400, body: { error: 'URL must have a valid top-level domain or be an IP address' } });
  });
});

describe('routes this server does not serve', () => {
  it('answer 404 ROUTE_NOT_FOUND saying so', async () => {
    const r = await cluster.call('POST', '/v2/agent', { body: { prompt: 'x' } });
    expect(r).toMatchObject({
      status: 404,
      body: { success: false, code: 'ROUTE_NOT_FOUND', error: 'POST /v2/agent is not available on this server (Trawl serves the v2 API; see GET /v2/openapi.json)' },
    });
    expect((await cluster.call('GET', '/nowhere', { key: null })).body.code).toBe('ROUTE_NOT_FOUND');
  });
  it('GET / describes the API', async () => {
    const r = await cluster.call('GET', '/', { key: null });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: 'Trawl', version: expect.any(String), docs: '/v2/openapi.json' });
    expect(r.body.endpoints).toEqual(expect.arrayContaining(['POST /v2/scrape', 'GET /v2/crawl/:id', 'GET /v2/team/credit-usage/historical']));
  });
});

describe('credit usage', () => {
  it('an unlimited team reports a large number, for the SDK\'s getCreditUsage', async () => {
    const team = await cluster.team({ credits: null });
    const r = await cluster.call('GET', '/v2/team/credit-usage', { key: team.key });
    expect(creditUsageResponseSchema.safeParse(r.body).error?.issues ?? []).toEqual([]);
    expect(r.body.data).toMatchObject({ remainingCredits: UNLIMITED_USAGE, planCredits: UNLIMITED_USAGE });
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const usage = await new Firecrawl({ apiKey: team.key, apiUrl: cluster.api.url }).getCreditUsage();
    expect(usage).toMatchObject({ remainingCredits: UNLIMITED_USAGE, planCredits: UNLIMITED_USAGE, billingPeriodStart: expect.any(String) });
    const limited = await cluster.team({ credits: 10 });
    await ledger.charge(limited.id, 3);
    expect((await cluster.call('GET', '/v2/team/credit-usage', { key: limited.key })).body.data).toMatchObject({ remainingCredits: 7, planCredits: 10 });
  });

  it('lists the credits charged per billing period, the team\'s own; byApiKey accepted; the SDK reads it', async () => {
    const [team, other] = [await cluster.team(), await cluster.team()];
    await ledger.charge(team.id, 4);
    await ledger.charge(team.id, 5);
    await ledger.charge(other.id, 2);
    for (const query of ['', '?byApiKey=true', '?byApiKey=false']) {
      const r = await cluster.call('GET', `/v2/team/credit-usage/historical${query}`, { key: team.key });
      expect(r.status).toBe(200);
      expect(creditUsageHistoricalResponseSchema.safeParse(r.body).error?.issues ?? []).toEqual([]);
      expect(r.body.periods).toEqual([{ startDate: expect.any(String), endDate: expect.any(String), creditsUsed: 9 }]);
    }
    expect((await cluster.call('GET', '/v2/team/credit-usage/historical?byApiKey=maybe', { key: team.key })).status).toBe(400);
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const history = await new Firecrawl({ apiKey: other.key, apiUrl: cluster.api.url }).getCreditUsageHistorical(true);
    expect(history).toMatchObject({ success: true, periods: [{ creditsUsed: 2 }] });
  });
});
