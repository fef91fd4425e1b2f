import { describe, expect, it } from '@jest/globals';
import { QUEUE_NAMES } from './job-catalog.js';
import { RedisKeys } from './redis-keys.js';

/** The hash tag of a key: what Redis Cluster hashes to pick its slot. */
const hashTag = (key: string) => /\{([^}]+)\}/.exec(key)?.[1];

describe('BullMQ prefixes', () => {
  it('on a single Redis every queue keeps the one prefix of earlier versions (queued jobs stay visible)', () => {
    const keys = new RedisKeys('trawl');
    expect(new Set(QUEUE_NAMES.map((q) => keys.bullPrefix(q)))).toEqual(new Set(['{trawl}:bull']));
    expect(keys.bullJobLock('scrape', 'j1')).toBe('{trawl}:bull:scrape:j1:lock');
  });

  it('on a Cluster each queue has its own hash tag, and every key of one queue shares it', () => {
    const keys = new RedisKeys('trawl', { cluster: true });
    const tags = QUEUE_NAMES.map((q) => hashTag(keys.bullPrefix(q)));
    expect(new Set(tags).size).toBe(QUEUE_NAMES.length);
    expect(keys.bullPrefix('scrape')).toBe('{trawl:scrape}:bull');
    expect(hashTag(keys.bullJobLock('crawl', 'j1'))).toBe(hashTag(keys.bullPrefix('crawl')));
    // Two deployments on one Cluster stay apart.
    expect(new RedisKeys('other', { cluster: true }).bullPrefix('scrape')).not.toBe(keys.bullPrefix('scrape'));
  });
});
