import { EventEmitter } from 'node:events';
import { describe, expect, it } from '@jest/globals';
import type { Redis } from 'ioredis';
import { RedisKeys } from '@trawl/queue';
import { CrawlEventHub } from './crawl-stream.js';

/** A subscriber connection: the events a Redis client emits, and SUBSCRIBE. */
function fakeSubscriber() {
  const channels: string[] = [];
  const sub = Object.assign(new EventEmitter(), {
    subscribe: async (channel: string) => {
      channels.push(channel);
      return channels.length;
    },
    disconnect: () => undefined,
  });
  return { sub, channels };
}

describe('CrawlEventHub', () => {
  it('wakes the streams of a crawl on its events, and every stream once its subscription is back', async () => {
    const { sub, channels } = fakeSubscriber();
    const keys = new RedisKeys('t');
    const hub = new CrawlEventHub(sub as unknown as Redis, keys);
    await hub.start();
    expect(channels).toEqual([keys.crawlEvents()]);
    const woken: string[] = [];
    const stopA = hub.listen('crawl-a', () => woken.push('a'));
    hub.listen('crawl-b', () => woken.push('b'));
    sub.emit('message', keys.crawlEvents(), JSON.stringify({ crawlId: 'crawl-a', type: 'page' }));
    sub.emit('message', keys.crawlEvents(), 'not json');
    expect(woken).toEqual(['a']);
    // A reconnection (or a Sentinel failover): events published meanwhile are lost, every stream reads again.
    sub.emit('ready');
    expect(woken.sort()).toEqual(['a', 'a', 'b']);
    stopA();
    sub.emit('ready');
    expect(woken.filter((w) => w === 'a')).toHaveLength(2);
    hub.close();
  });
});
