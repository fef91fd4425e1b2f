import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { BOOT_KEY, TestCluster } from './helpers/cluster.js';

/**
 * The gateway's side of the LLM features: 400 LLM_NOT_CONFIGURED at validation wherever scrape options
 * enter (before anything is queued or charged), highlights admitted without an LLM (lexical), and the
 * credit check counting 4 credits a page for each LLM feature. No worker runs: what was admitted stays
 * queued, so the queue shows whether anything got through.
 */
let plain: TestCluster;
let withLlm: TestCluster;
const URL = 'http://127.0.0.1:9/page';

beforeAll(async () => {
  // Documents on at the gateway so /v2/parse reaches option validation.
  plain = await TestCluster.start({ TRAWL_DOCUMENTS_ENABLED: 'true' }, { worker: false });
  // Nothing listens there: no call is made, the gateway only needs to know an LLM is configured.
  withLlm = await TestCluster.start({ TRAWL_LLM_BASE_URL: 'http://127.0.0.1:9/v1', TRAWL_LLM_MODEL: 'test-model' }, { worker: false });
});
afterAll(async () => {
  await plain?.stop();
  await withLlm?.stop();
});

function parseUpload(cluster: TestCluster, key: string, options: unknown) {
  const form = new FormData();
  form.append('options', JSON.stringify(options));
  form.append('file', new Blob(['<html><body><p>x</p></body></html>'], { type: 'text/html' }), 'page.html');
  return fetch(`${cluster.api.url}/v2/parse`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form })
    .then(async (r) => ({ status: r.status, body: await r.json() as Record<string, unknown> }));
}

describe('no LLM configured', () => {
  const notConfigured = (option: string) => ({
    status: 400,
    body: expect.objectContaining({
      code: 'LLM_NOT_CONFIGURED',
      error: expect.stringContaining(`${option} needs an LLM`),
      details: { option, setting: 'TRAWL_LLM_BASE_URL' },
    }),
  });

  it('answers 400 LLM_NOT_CONFIGURED naming the option, wherever scrape options enter, and queues and charges nothing', async () => {
    const team = await plain.team({ credits: 100 });
    const call = (method: string, path: string, body: unknown) => plain.call(method, path, { key: team.key, body }).then((r) => ({ status: r.status, body: r.body }));
    const json = { type: 'json', schema: { type: 'object', properties: { title: { type: 'string' } } } };
    const cases: Array<[Promise<unknown>, string]> = [
      [call('POST', '/v2/scrape', { url: URL, formats: ['markdown', json] }), 'formats[1]'],
      [call('POST', '/v2/scrape', { url: URL, formats: ['summary'] }), 'formats[0]'],
      [call('POST', '/v2/scrape', { url: URL, formats: [{ type: 'question', question: 'Who?' }] }), 'formats[0]'],
      [call('POST', '/v2/scrape', { url: URL, onlyCleanContent: true }), 'onlyCleanContent'],
      [call('POST', '/v2/scrape', { url: URL, formats: ['markdown', { type: 'changeTracking', modes: ['git-diff', 'json'] }] }), 'formats[1].modes'],
      [call('POST', '/v2/batch/scrape', { urls: [URL], formats: [json] }), 'formats[0]'],
      [call('POST', '/v2/crawl', { url: URL, scrapeOptions: { formats: [json] } }), 'scrapeOptions.formats[0]'],
      [call('POST', '/v2/crawl', { url: URL, scrapeOptions: { onlyCleanContent: true } }), 'scrapeOptions.onlyCleanContent'],
      [call('POST', '/v2/monitor', {
        name: 'm', schedule: { cron: '0 3 * * *' }, targets: [{ type: 'scrape', urls: [URL], scrapeOptions: { formats: ['markdown', 'summary'] } }],
      }), 'targets[0].scrapeOptions.formats[1]'],
      [parseUpload(plain, team.key, { formats: ['markdown', { type: 'question', question: 'Who?' }] }), 'formats[1]'],
    ];
    for (const [answer, option] of cases) expect([option, await answer]).toEqual([option, notConfigured(option)]);
    const queue = await plain.call('GET', '/v2/team/queue-status', { key: team.key });
    expect(queue.body).toMatchObject({ jobsInQueue: 0, waitingJobsInQueue: 0 });
    expect((await plain.call('GET', '/v2/team/credit-usage', { key: team.key })).body.data.remainingCredits).toBe(100);
    expect(await plain.redis.keys('*:docbody:*')).toEqual([]);
  });

  it('admits highlights (ranked lexically) and charges them nothing beyond the page', async () => {
    const team = await plain.team({ credits: 1 });
    const r = await plain.call('POST', '/v2/batch/scrape', { key: team.key, body: { urls: [URL], formats: ['markdown', { type: 'highlights', query: 'price' }] } });
    expect(r.status).toBe(200);
    expect(r.body.id).toEqual(expect.any(String));
  });

  it('refuses onlyCleanContent with zero data retention whether or not an LLM is configured', async () => {
    for (const cluster of [plain, withLlm]) {
      const r = await cluster.call('POST', '/v2/batch/scrape', { key: BOOT_KEY, body: { urls: [URL], onlyCleanContent: true, zeroDataRetention: true } });
      expect(r.status).toBe(400);
      expect(r.body.error).toContain('onlyCleanContent is not supported with zero data retention');
    }
  });
});

describe('an LLM configured', () => {
  it('admits the LLM features', async () => {
    const r = await withLlm.call('POST', '/v2/batch/scrape', {
      body: { urls: [URL], formats: ['summary', { type: 'json', prompt: 'title' }, { type: 'changeTracking', modes: ['json'] }], onlyCleanContent: true },
    });
    expect(r.status).toBe(200);
  });

  it('checks the team can pay 4 credits a page for each LLM feature before admitting (highlights included: the LLM picks them)', async () => {
    const poor = await withLlm.team({ credits: 4 });
    const refusals = [
      await withLlm.call('POST', '/v2/scrape', { key: poor.key, body: { url: URL, formats: [{ type: 'json', prompt: 'title' }] } }),
      await withLlm.call('POST', '/v2/batch/scrape', { key: poor.key, body: { urls: [URL], formats: [{ type: 'highlights', query: 'q' }] } }),
      await withLlm.call('POST', '/v2/crawl', { key: poor.key, body: { url: URL, scrapeOptions: { onlyCleanContent: true } } }),
    ];
    for (const r of refusals) expect(r).toMatchObject({ status: 402, body: { code: 'INSUFFICIENT_CREDITS', details: { remainingCredits: 4, required: 5 } } });
    const two = await withLlm.call('POST', '/v2/batch/scrape', { key: poor.key, body: { urls: [URL], formats: ['summary', { type: 'question', question: 'q' }] } });
    expect(two).toMatchObject({ status: 402, body: { details: { required: 9 } } });
    expect((await withLlm.call('GET', '/v2/team/queue-status', { key: poor.key })).body.jobsInQueue).toBe(0);
    const enough = await withLlm.team({ credits: 5 });
    const ok = await withLlm.call('POST', '/v2/batch/scrape', { key: enough.key, body: { urls: [URL], formats: [{ type: 'json', prompt: 'title' }] } });
    expect(ok.status).toBe(200);
  });
});
