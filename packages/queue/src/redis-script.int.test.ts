import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { RedisServerFixture } from '@trawl/testing';
import { defineScript, releaseLockScript } from './redis-script.js';

let server: RedisServerFixture;
let redis: Redis;

beforeAll(async () => {
  server = await RedisServerFixture.start({ appendonly: false });
  redis = new Redis(server.url);
});
afterAll(async () => {
  redis.disconnect();
  await server.stop();
});

describe('defineScript', () => {
  it('releases a lock only for its owner, also after the server forgot its scripts', async () => {
    const lock = `t${randomUUID()}:lock`;
    await redis.set(lock, 'owner-a');
    expect(await releaseLockScript.run(redis, [lock], ['owner-b'])).toBe(false);
    expect(await redis.get(lock)).toBe('owner-a');
    await redis.script('FLUSH');
    expect(await releaseLockScript.run(redis, [lock], ['owner-a'])).toBe(true);
    expect(await redis.exists(lock)).toBe(0);
  });

  it('decodes replies and refuses a call with the wrong number of keys', async () => {
    const echo = defineScript({ name: 'trawlTestEcho', numberOfKeys: 1, lua: 'return {KEYS[1], ARGV[1]}', decode: (r) => (r as string[]).join('|') });
    expect(await echo.run(redis, ['k'], [42])).toBe('k|42');
    await expect(echo.run(redis, [], ['x'])).rejects.toThrow('1 keys expected');
  });
});
