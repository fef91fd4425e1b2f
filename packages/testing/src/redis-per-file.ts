import { afterAll, beforeAll } from '@jest/globals';
import { Redis } from 'ioredis';
import { RedisServerFixture } from './redis-server.js';

/** The Redis of one test file: see {@link redisPerFile}. */
export interface FileRedis {
  /** A client of the file's server (readable once the file's `beforeAll` hooks ran). */
  readonly redis: Redis;
  readonly server: RedisServerFixture;
}

/**
 * Starts one `redis-server` (no AOF) with a client for the test file that calls it, in `beforeAll`,
 * and stops both in `afterAll`. Call it at the top level of the file.
 */
export function redisPerFile(): FileRedis {
  let server: RedisServerFixture | undefined;
  let redis: Redis | undefined;
  beforeAll(async () => {
    server = await RedisServerFixture.start({ appendonly: false });
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('redisPerFile: read before the file\'s beforeAll ran');
    return value;
  };
  return {
    get redis() {
      return started(redis);
    },
    get server() {
      return started(server);
    },
  };
}
