import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { UNLIMITED_USAGE, tokenUsageHistoricalResponseSchema, tokenUsageResponseSchema } from '@trawl/api-schema';
import { RedisKeys, TokenLedger } from '@trawl/queue';
import { TestCluster } from './helpers/cluster.js';

/** `GET /v2/team/token-usage(/historical)` over what the workers record in the TokenLedger. */
let cluster: TestCluster;
let ledger: TokenLedger;

beforeAll(async () => {
  cluster = await TestCluster.start({ TRAWL_REDIS_PREFIX: 'tok' }, { worker: false });
  ledger = new TokenLedger(cluster.redis, new RedisKeys('tok'));
});
afterAll(async () => {
  await cluster?.stop();
});

describe('token usage', () => {
  it('reports unlimited tokens as a large number with the current billing period', async () => {
    const team = await cluster.team();
    const r = await cluster.call('GET', '/v2/team/token-usage', { key: team.key });
    expect(r.status).toBe(200);
    expect(tokenUsageResponseSchema.safeParse(r.body).error?.issues ?? []).toEqual([]);
    expect(r.body.data).toMatchObject({ remainingTokens: UNLIMITED_USAGE, planTokens: UNLIMITED_USAGE });
    const [start, end] = [Date.parse(r.body.data.billingPeriodStart), Date.parse(r.body.data.billingPeriodEnd)];
    expect(start).toBeLessThanOrEqual(Date.now());
    expect(end).toBeGreaterThan(Date.now());
    const credits = await cluster.call('GET', '/v2/team/credit-usage', { key: team.key });
    expect([credits.body.data.billingPeriodStart, credits.body.data.billingPeriodEnd]).toEqual([r.body.data.billingPeriodStart, r.body.data.billingPeriodEnd]);
  });

  it('lists the tokens the team used in its billing period, its own only; byApiKey is accepted', async () => {
    const [team, other] = [await cluster.team(), await cluster.team()];
    await ledger.record(team.id, 1200);
    await ledger.record(team.id, 34);
    await ledger.record(other.id, 5);
    for (const query of ['', '?byApiKey=true', '?byApiKey=false']) {
      const r = await cluster.call('GET', `/v2/team/token-usage/historical${query}`, { key: team.key });
      expect(r.status).toBe(200);
      expect(tokenUsageHistoricalResponseSchema.safeParse(r.body).error?.issues ?? []).toEqual([]);
      // A team created now has one period: the current one.
      expect(r.body.periods).toEqual([{ startDate: expect.any(String), endDate: expect.any(String), tokensUsed: 1234 }]);
    }
    expect((await cluster.call('GET', '/v2/team/token-usage/historical', { key: other.key })).body.periods[0].tokensUsed).toBe(5);
    const bad = await cluster.call('GET', '/v2/team/token-usage/historical?byApiKey=maybe', { key: team.key });
    expect(bad).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    expect((await cluster.call('GET', '/v2/team/token-usage', { key: null })).status).toBe(401);
  });

  it('serves the official SDK\'s getTokenUsage and getTokenUsageHistorical', async () => {
    const team = await cluster.team();
    await ledger.record(team.id, 77);
    const { default: Firecrawl } = await import('@mendable/firecrawl-js');
    const fc = new Firecrawl({ apiKey: team.key, apiUrl: cluster.api.url });
    const usage = await fc.getTokenUsage();
    expect(usage).toMatchObject({ remainingTokens: UNLIMITED_USAGE, planTokens: UNLIMITED_USAGE, billingPeriodStart: expect.any(String) });
    const history = await fc.getTokenUsageHistorical(true);
    expect(history).toMatchObject({ success: true, periods: [{ tokensUsed: 77 }] });
  });
});
