import { describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { redisPerFile } from '@trawl/testing';
import { closeRedisClient, createRedisClient } from './redis-connection.js';

const db = redisPerFile();

/** The socket ioredis writes to (replaced on each reconnection). */
const socketOf = (client: unknown) => (client as { stream: { writableCorked: number; writableLength: number; trawlCoalesced?: true } }).stream;

describe('createRedisClient write coalescing', () => {
  it('sends the commands of one turn in one write, in order, and again after a reconnection', async () => {
    const client = createRedisClient({ url: db.server.url, connectionName: 'coalesce-test' });
    try {
      await client.ping();
      const socket = socketOf(client);
      expect(socket.trawlCoalesced).toBe(true);
      // Issued in one turn: held in the corked socket until the turn ends, then written together.
      const replies = Array.from({ length: 20 }, () => client.incr('coalesce:n'));
      expect(socket.writableCorked).toBe(1);
      expect(socket.writableLength).toBeGreaterThan(0); // held, not yet handed to the kernel
      expect(await Promise.all(replies)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(socket.writableCorked).toBe(0);
      // A command of a later turn goes out too (the socket was uncorked).
      expect(await client.get('coalesce:n')).toBe('20');

      // A new socket after a reconnection is coalesced as well.
      const reconnected = once(client, 'ready');
      client.disconnect(true);
      await reconnected;
      const fresh = socketOf(client);
      expect(fresh).not.toBe(socket);
      expect(fresh.trawlCoalesced).toBe(true);
      expect(await client.incr('coalesce:n')).toBe(21);
    } finally {
      await closeRedisClient(client);
    }
  });
});
