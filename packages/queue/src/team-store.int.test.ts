import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { redisPerFile } from '@trawl/testing';
import { RedisKeys } from './redis-keys.js';
import { TeamStore } from './team-store.js';

const db = redisPerFile();

describe('TeamStore.resolveKeyCached', () => {
  it('remembers a key\'s team id for maxAgeMs, reads the team every time, forgets a key deleted through it at once', async () => {
    const keys = new RedisKeys(`t${randomUUID().slice(0, 8)}`);
    const gateway = new TeamStore(db.redis, keys);
    const other = new TeamStore(db.redis, keys); // another process (a replica, an admin command)
    const team = await other.create({ name: 'a' });
    const { key } = await other.createKey(team.id);
    const second = await other.createKey(team.id);

    expect(gateway.knowsKey(key, 3000, 1000)).toBe(false);
    expect((await gateway.resolveKeyCached(key, 3000, 1000))?.id).toBe(team.id);
    // Known from now on, for maxAgeMs (POST /v2/scrape then reads the body beside the team read).
    expect(gateway.knowsKey(key, 3000, 3999)).toBe(true);
    expect(gateway.knowsKey(key, 3000, 4000)).toBe(false);
    // The team record is read every time: disabling it elsewhere shows at once.
    await other.update(team.id, { disabled: true });
    expect((await gateway.resolveKeyCached(key, 3000, 1001))?.disabled).toBe(true);
    // A key deleted elsewhere still resolves within maxAgeMs, and no longer after it.
    expect(await other.deleteKey(key)).toBe(true);
    expect((await gateway.resolveKeyCached(key, 3000, 3999))?.id).toBe(team.id);
    expect(await gateway.resolveKeyCached(key, 3000, 4000)).toBeNull();
    expect(await gateway.resolveKeyCached(key, 3000, 4001)).toBeNull();
    // Deleted through the gateway's own store: refused at once.
    expect((await gateway.resolveKeyCached(second.key, 3000, 5000))?.id).toBe(team.id);
    expect(await gateway.deleteKey(second.key)).toBe(true);
    expect(await gateway.resolveKeyCached(second.key, 3000, 5001)).toBeNull();
    // Unknown keys are never remembered.
    expect(await gateway.resolveKeyCached('tr-unknown', 3000, 5002)).toBeNull();
    expect(gateway.knowsKey('tr-unknown', 3000, 5002)).toBe(false);
    expect(gateway.knowsKey(second.key, 3000, 5002)).toBe(false);
  });
});
