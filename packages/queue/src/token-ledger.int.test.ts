import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { redisPerFile } from '@trawl/testing';
import { RedisKeys } from './redis-keys.js';
import { TokenLedger } from './token-ledger.js';

const db = redisPerFile();

/** A ledger with a unique prefix and a clock the test moves. */
function setup(startIso: string) {
  const keys = new RedisKeys(`t${randomUUID().slice(0, 8)}`);
  const clock = { ms: Date.parse(startIso) };
  const ledger = new TokenLedger(db.redis, keys, { now: () => clock.ms });
  return { keys, clock, ledger, teamId: randomUUID() };
}

describe('TokenLedger', () => {
  it('adds tokens to the team total and to the day they were used', async () => {
    const { ledger, clock, teamId } = setup('2026-03-14T23:59:00Z');
    await ledger.record(teamId, 100);
    await ledger.record(teamId, 20.2);
    clock.ms = Date.parse('2026-03-15T00:01:00Z');
    await ledger.record(teamId, 5);
    expect(await ledger.total(teamId)).toBe(126);
    expect(await ledger.daily(teamId)).toEqual([{ day: '2026-03-14', tokens: 121 }, { day: '2026-03-15', tokens: 5 }]);
  });

  it('ignores zero, negative and non-finite amounts', async () => {
    const { ledger, teamId, keys } = setup('2026-03-14T12:00:00Z');
    await ledger.record(teamId, 0);
    await ledger.record(teamId, -10);
    await ledger.record(teamId, Number.NaN);
    expect(await ledger.total(teamId)).toBe(0);
    expect(await db.redis.exists(keys.teamTokensDaily(teamId))).toBe(0);
  });

  it('sums the days of each period, start included and end excluded', async () => {
    const { ledger, clock, teamId } = setup('2026-01-31T10:00:00Z');
    await ledger.record(teamId, 1);
    clock.ms = Date.parse('2026-02-01T00:00:00Z');
    await ledger.record(teamId, 10);
    clock.ms = Date.parse('2026-02-28T23:00:00Z');
    await ledger.record(teamId, 100);
    clock.ms = Date.parse('2026-03-01T00:00:00Z');
    await ledger.record(teamId, 1000);
    const periods = [
      { start: new Date('2026-03-01T00:00:00Z'), end: new Date('2026-04-01T00:00:00Z') },
      { start: new Date('2026-02-01T00:00:00Z'), end: new Date('2026-03-01T00:00:00Z') },
      { start: new Date('2025-12-01T00:00:00Z'), end: new Date('2026-01-01T00:00:00Z') },
    ];
    expect(await ledger.usedIn(teamId, periods)).toEqual([1000, 110, 0]);
  });

  it('keeps each team apart and leaves the team\'s other fields alone', async () => {
    const { ledger, keys, teamId } = setup('2026-03-14T12:00:00Z');
    const other = randomUUID();
    await db.redis.hset(keys.team(teamId), { creditsUsed: '7', name: 'a' });
    await Promise.all(Array.from({ length: 20 }, () => ledger.record(teamId, 3)));
    await ledger.record(other, 2);
    expect(await ledger.total(teamId)).toBe(60);
    expect(await ledger.total(other)).toBe(2);
    expect(await db.redis.hmget(keys.team(teamId), 'creditsUsed', 'name')).toEqual(['7', 'a']);
  });
});
