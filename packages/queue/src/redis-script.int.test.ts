import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { redisPerFile } from '@trawl/testing';
import { defineScript, releaseLockScript } from './redis-script.js';

const db = redisPerFile();

describe('defineScript', () => {
  it('releases a lock only for its owner, also after the server forgot its scripts', async () => {
    const lock = `t${randomUUID()}:lock`;
    await db.redis.set(lock, 'owner-a');
    expect(await releaseLockScript.run(db.redis, [lock], ['owner-b'])).toBe(false);
    expect(await db.redis.get(lock)).toBe('owner-a');
    await db.redis.script('FLUSH');
    expect(await releaseLockScript.run(db.redis, [lock], ['owner-a'])).toBe(true);
    expect(await db.redis.exists(lock)).toBe(0);
  });

  it('decodes replies and refuses a call with the wrong number of keys', async () => {
    const echo = defineScript({ name: 'trawlTestEcho', numberOfKeys: 1, lua: 'return {KEYS[1], ARGV[1]}', decode: (r) => (r as string[]).join('|') });
    expect(await echo.run(db.redis, ['k'], [42])).toBe('k|42');
    await expect(echo.run(db.redis, [], ['x'])).rejects.toThrow('1 keys expected');
  });
});
