import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { connect } from 'node:net';
import { createApiKeyResponseSchema, teamListResponseSchema, teamResponseSchema } from '@trawl/api-schema';
import { FixtureSite, RedisMonitor, waitFor } from '@trawl/testing';
import { ADMIN_KEY, BOOT_KEY, TestCluster } from './helpers/cluster.js';

let cluster: TestCluster;
let site: FixtureSite;
/** `/held` answers once the test calls `release`; `arrived` resolves when a request reaches it. */
function holdGate() {
  let arrive!: () => void;
  let release!: () => void;
  const arrived = new Promise<void>((r) => { arrive = r; });
  const released = new Promise<void>((r) => { release = r; });
  return { arrive, arrived, release, released };
}
let gate = holdGate();

beforeAll(async () => {
  site = await new FixtureSite()
    .page('/', '<html><head><title>Home</title></head><body><main><h1>Hello</h1><p>World of text.</p></main></body></html>')
    .route('/held', async (_req, res) => {
      gate.arrive();
      await gate.released;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><main><p>Held page, answered once released.</p></main></body></html>');
    })
    .page('/queued', '<html><body><main><p>Queued page.</p></main></body></html>')
    .start();
  cluster = await TestCluster.start();
});
afterAll(async () => {
  const t0 = Date.now();
  await cluster.stop();
  await site.stop();
  if (process.env.TRACE_STOP) console.log('stop took', Date.now() - t0);
}, 30_000);

describe('authentication', () => {
  it('401 without a key or with a wrong key, on v1 and v2', async () => {
    for (const path of ['/v2/scrape', '/v1/crawl/active', '/v2/team/credit-usage']) {
      const none = await cluster.call('GET', path, { key: null });
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
      expect(typeof none.body.error).toBe('string');
      expect((await cluster.call('GET', path, { key: 'tr-wrong' })).status).toBe(401);
    }
  });
  it('every response carries X-Request-Id, and a safe incoming one is echoed', async () => {
    const r = await cluster.call('GET', '/v2/team/credit-usage', { headers: { 'x-request-id': 'abc-12345678' } });
    expect(r.headers.get('x-request-id')).toBe('abc-12345678');
    const r2 = await cluster.call('GET', '/nope', { key: null });
    expect(r2.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(r2.status).toBe(404);
  });
});

describe('admin API', () => {
  it('403 for an API key, 401 for nothing, full team and key flow for the admin key', async () => {
    expect((await cluster.call('GET', '/admin/teams', { key: BOOT_KEY })).status).toBe(403);
    expect((await cluster.call('GET', '/admin/teams', { key: null })).status).toBe(401);
    const created = await cluster.admin('POST', '/admin/teams', { name: 'acme', concurrency: 3, credits: 10 });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ success: true, name: 'acme', concurrency: 3, credits: 10, ratePerMinute: 100 });
    expect(teamResponseSchema.safeParse(created.body).success).toBe(true);
    const id = created.body.id as string;
    const list = await cluster.admin('GET', '/admin/teams');
    expect(teamListResponseSchema.safeParse(list.body).success).toBe(true);
    expect(list.body.teams.map((t: { id: string }) => t.id)).toContain(id);
    const patched = await cluster.admin('PATCH', `/admin/teams/${id}`, { ratePerMinute: 7 });
    expect(patched.body).toMatchObject({ ratePerMinute: 7, concurrency: 3 });
    const key = await cluster.admin('POST', `/admin/teams/${id}/keys`, { name: 'ci' });
    expect(key.body.key).toMatch(/^tr-[0-9a-f]{40}$/);
    expect(createApiKeyResponseSchema.safeParse(key.body).success).toBe(true);
    const usage = await cluster.call('GET', '/v2/team/credit-usage', { key: key.body.key });
    expect(usage.body).toMatchObject({ success: true, data: { remainingCredits: 10, planCredits: 10 } });
    const keys = await cluster.admin('GET', `/admin/teams/${id}/keys`);
    expect(JSON.stringify(keys.body)).not.toContain(key.body.key);
    expect((await cluster.admin('DELETE', `/admin/keys/${key.body.key}`)).status).toBe(200);
    expect((await cluster.call('GET', '/v2/team/credit-usage', { key: key.body.key })).status).toBe(401);
    expect((await cluster.admin('DELETE', `/admin/keys/${key.body.key}`)).status).toBe(404);
    expect((await cluster.admin('POST', '/admin/teams', { name: '' })).status).toBe(400);
    expect((await cluster.admin('PATCH', '/admin/teams/nope', { name: 'x' })).status).toBe(404);
  });
});

describe('revoking keys and disabling teams', () => {
  it('a key is revoked by the keyId its listing shows', async () => {
    const t = await cluster.team();
    const other = await cluster.admin('POST', `/admin/teams/${t.id}/keys`, { name: 'second' });
    const listed = await cluster.admin('GET', `/admin/teams/${t.id}/keys`);
    const keyId = listed.body.keys.find((k: { name: string | null }) => k.name === 'second').keyId as string;
    expect(keyId).toBe(other.body.keyId);
    expect((await cluster.admin('DELETE', `/admin/keys/${keyId}`)).status).toBe(200);
    expect((await cluster.call('GET', '/v2/team/credit-usage', { key: other.body.key })).status).toBe(401);
    expect((await cluster.admin('DELETE', `/admin/keys/${keyId}`)).status).toBe(404);
    // The team's other key is untouched.
    expect((await cluster.call('GET', '/v2/team/credit-usage', { key: t.key })).status).toBe(200);
    expect((await cluster.admin('GET', `/admin/teams/${t.id}/keys`)).body.keys).toHaveLength(1);
  });

  it('a disabled team gets 403 TEAM_DISABLED on every v1 and v2 route until enabled again', async () => {
    const t = await cluster.team();
    const disabled = await cluster.admin('PATCH', `/admin/teams/${t.id}`, { disabled: true });
    expect(disabled.body).toMatchObject({ success: true, disabled: true });
    expect(teamResponseSchema.safeParse(disabled.body).success).toBe(true);
    for (const [method, path] of [['GET', '/v2/team/credit-usage'], ['POST', '/v2/scrape'], ['GET', '/v1/crawl/active'], ['POST', '/v1/scrape']]) {
      const r = await cluster.call(method!, path!, { key: t.key, ...(method === 'POST' ? { body: { url: site.url('/') } } : {}) });
      expect([path, r.status, r.body.code]).toEqual([path, 403, 'TEAM_DISABLED']);
    }
    expect(site.hits.get('/')).toBeUndefined();
    expect((await cluster.admin('PATCH', `/admin/teams/${t.id}`, { disabled: false })).body.disabled).toBe(false);
    expect((await cluster.call('POST', '/v2/scrape', { key: t.key, body: { url: site.url('/') } })).status).toBe(200);
  });

  it('a job waiting in a team\'s backlog when the team is disabled never starts; the running one finishes', async () => {
    const t = await cluster.team({ concurrency: 1 });
    gate = holdGate();
    const running = cluster.call('POST', '/v2/scrape', { key: t.key, body: { url: site.url('/held'), maxAge: 0 } });
    await gate.arrived;
    const queued = cluster.call('POST', '/v2/scrape', { key: t.key, body: { url: site.url('/queued'), maxAge: 0 } });
    // Admitted into the backlog (behind the held job) before the team is disabled.
    await waitFor(async () => (await cluster.call('GET', '/v2/team/queue-status', { key: t.key })).body.waitingJobsInQueue === 1,
      { what: 'the second job in the team backlog' });
    await cluster.admin('PATCH', `/admin/teams/${t.id}`, { disabled: true });
    gate.release();
    expect((await running).status).toBe(200);
    const refused = await queued;
    expect([refused.status, refused.body.code]).toEqual([403, 'TEAM_DISABLED']);
    expect(site.hits.get('/queued')).toBeUndefined();
  });
});

describe('request validation', () => {
  it('400 names an unknown key, accepts origin and integration', async () => {
    const r = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/'), bogus: 1 } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, code: 'BAD_REQUEST' });
    expect(r.body.error).toBe('Unrecognized key in body -- please review the v2 API documentation for request body changes');
    expect(r.body.details.issues[0].path).toBe('bogus');
    const ok = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/'), origin: 'js-sdk@4.3.0', integration: 'test' } });
    expect(ok.status).toBe(200);
  });
  it('400 BAD_REQUEST_INVALID_JSON for malformed JSON, 413 for an oversized body', async () => {
    const bad = await cluster.call('POST', '/v2/scrape', { raw: '{"url": ' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('BAD_REQUEST_INVALID_JSON');
    const big = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/'), headers: { x: 'a'.repeat(11 * 1024 * 1024) } } });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('PAYLOAD_TOO_LARGE');
  });
  it('400 for a malformed job id with the exact message', async () => {
    const r = await cluster.call('GET', '/v2/scrape/not-a-uuid');
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('Invalid job ID format. Job ID must be a valid UUID.');
  });
  it('400 UNSUPPORTED_OPTION names an option this server cannot serve yet', async () => {
    const r = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/'), actions: [{ type: 'wait', milliseconds: 10 }] } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'UNSUPPORTED_OPTION', details: { option: 'actions' } });
  });
});

describe('limits', () => {
  it('429 with Retry-After past the per-minute rate, counted before validation; polling has its own allowance', async () => {
    const t = await cluster.team({ ratePerMinute: 3 });
    for (let i = 0; i < 3; i++) expect((await cluster.call('POST', '/v2/scrape', { key: t.key, raw: 'not json' })).status).toBe(400);
    const limited = await cluster.call('POST', '/v2/scrape', { key: t.key, body: { url: site.url('/') } });
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ success: false, code: 'RATE_LIMITED', error: 'Request rate limit exceeded. Please wait and try again later.' });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // The key is known here by now, so its body is read while the rate is counted: the refusal still
    // comes first, and a body that arrives after it is neither parsed nor validated.
    expect((await cluster.call('POST', '/v2/scrape', { key: t.key, raw: 'not json' })).body.code).toBe('RATE_LIMITED');
    const hops: string[] = [];
    const onHop = ({ hop }: { hop: string }) => hops.push(hop);
    subscribe('trawl:hop', onHop as (message: unknown) => void);
    try {
      const rest = '"http://127.0.0.1:9/"}';
      const socket = connect(Number(new URL(cluster.api.url).port), '127.0.0.1');
      const answer = new Promise<string>((resolve) => socket.once('data', (d: Buffer) => resolve(d.toString('latin1'))));
      socket.write(`POST /v2/scrape HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.key}\r\nContent-Type: application/json\r\n`
        + `Content-Length: ${'{"url":'.length + rest.length}\r\n\r\n{"url":`);
      expect(await answer).toMatch(/^HTTP\/1\.1 429/);
      socket.write(rest);
      await waitFor(() => hops.includes('gateway:json-body'), { timeoutMs: 5000, what: 'the body to be read' });
      socket.destroy();
      expect(hops).not.toContain('gateway:validate');
    } finally {
      unsubscribe('trawl:hop', onHop as (message: unknown) => void);
    }
    expect((await cluster.call('POST', '/v2/scrape', { key: 'tr-not-a-key-0123456789', raw: 'not json' })).status).toBe(401);
    expect((await cluster.call('GET', '/v2/concurrency-check', { key: t.key })).status).toBe(200);
  });
  it('POST /v2/scrape reads its team and counts its rate in one Redis call; a wrong key is 401 and counts nothing', async () => {
    const t = await cluster.team({ ratePerMinute: 100 });
    expect((await cluster.call('POST', '/v2/scrape', { key: t.key, raw: 'not json' })).status).toBe(400); // the key is now remembered
    const { host, port } = cluster.redis.options;
    const monitor = await RedisMonitor.start(host!, port!);
    const calls: string[][] = [];
    const marker = `end-${t.id}`;
    const seen = new Promise<void>((resolve) => {
      monitor.on(({ args, source }) => {
        if (args[0]?.toLowerCase() === 'echo' && args[1] === marker) resolve();
        else if (source !== 'lua' && args.some((a) => a.includes(`{t:${t.id}}`))) calls.push(args);
      });
    });
    const r = await cluster.call('POST', '/v2/scrape', { key: t.key, raw: 'not json' });
    expect(r.status).toBe(400);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('98');
    expect((await cluster.call('POST', '/v2/scrape', { key: 'tr-wrong-key', body: { url: site.url('/') } })).status).toBe(401);
    await cluster.redis.echo(marker);
    await seen;
    monitor.stop();
    expect(calls.map((c) => c[0]!.toLowerCase())).toEqual(['evalsha']);
  });

  it('402 when credits run out, with the spec message; charged per scrape', async () => {
    const t = await cluster.team({ credits: 1 });
    const first = await cluster.call('POST', '/v2/scrape', { key: t.key, body: { url: site.url('/') } });
    expect(first.status).toBe(200);
    expect(first.body.data.metadata.creditsUsed).toBe(1);
    const second = await cluster.call('POST', '/v2/scrape', { key: t.key, body: { url: site.url('/') } });
    expect(second.status).toBe(402);
    expect(second.body).toMatchObject({ success: false, code: 'INSUFFICIENT_CREDITS', error: 'Payment required to access this resource.' });
    const usage = await cluster.call('GET', '/v2/team/credit-usage', { key: t.key });
    expect(usage.body.data.remainingCredits).toBe(0);
  });
});

describe('team isolation', () => {
  it('a team cannot read another team\'s scrape, and queue status is per team', async () => {
    const a = await cluster.team();
    const b = await cluster.team({ concurrency: 5 });
    const scraped = await cluster.call('POST', '/v2/scrape', { key: a.key, body: { url: site.url('/') } });
    const id = scraped.body.data.metadata.scrapeId as string;
    expect((await cluster.call('GET', `/v2/scrape/${id}`, { key: a.key })).body.data.metadata.scrapeId).toBe(id);
    expect((await cluster.call('GET', `/v2/scrape/${id}`, { key: b.key })).status).toBe(404);
    const qs = await cluster.call('GET', '/v2/team/queue-status', { key: b.key });
    expect(qs.body).toMatchObject({ success: true, jobsInQueue: 0, activeJobsInQueue: 0, waitingJobsInQueue: 0, maxConcurrency: 5, mostRecentSuccess: null });
    const qa = await cluster.call('GET', '/v2/team/queue-status', { key: a.key });
    expect(typeof qa.body.mostRecentSuccess).toBe('string');
  });
});

describe('persistence and system routes', () => {
  it('teams and keys survive a Redis restart (AOF) and an API restart', async () => {
    const t = await cluster.team({ concurrency: 4 });
    await cluster.redisServer.restart();
    await cluster.restartApi();
    const r = await cluster.call('GET', '/v2/concurrency-check', { key: t.key });
    expect(r.body).toMatchObject({ success: true, concurrency: 0, maxConcurrency: 4 });
  });
  it('/metrics is Prometheus text with route templates; /v2/openapi.json is OpenAPI 3.1; health', async () => {
    expect((await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/') } })).status).toBe(200);
    const id = (await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/') } })).body.data.metadata.scrapeId as string;
    expect((await cluster.call('GET', `/v2/scrape/${id}`)).status).toBe(200);
    const m = await fetch(cluster.api.url + '/metrics');
    const text = await m.text();
    expect(m.headers.get('content-type')).toContain('text/plain');
    expect(text).toMatch(/trawl_http_request_duration_seconds_bucket\{[^}]*route="\/v2\/scrape"/);
    expect(text).not.toMatch(/route="\/v2\/scrape\/[0-9a-f-]{36}"/);
    const o = await cluster.call('GET', '/v2/openapi.json', { key: null });
    expect(o.body.openapi).toBe('3.1.0');
    expect(Object.keys(o.body.paths)).toContain('/v2/scrape');
    expect((await cluster.call('GET', '/health/live', { key: null })).status).toBe(200);
    expect((await cluster.call('GET', '/health/ready', { key: null })).status).toBe(200);
    const wm = await fetch(`http://127.0.0.1:${cluster.worker!.metricsPort}/metrics`);
    expect(await wm.text()).toContain('trawl_job_duration_seconds');
    void ADMIN_KEY;
  });
});
