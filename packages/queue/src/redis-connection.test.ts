import { describe, expect, it } from '@jest/globals';
import { parseClusterUrl } from './redis-connection.js';

describe('parseClusterUrl', () => {
  it('reads the seed nodes, credentials and TLS of a redis+cluster:// URL', () => {
    expect(parseClusterUrl('redis+cluster://10.0.0.1:7000,10.0.0.2:7001, redis-c:7002')).toEqual({
      nodes: [{ host: '10.0.0.1', port: 7000 }, { host: '10.0.0.2', port: 7001 }, { host: 'redis-c', port: 7002 }], tls: false,
    });
    expect(parseClusterUrl('rediss+cluster://app:p%40ss@a:6380,[::1]:6381/')).toEqual({
      nodes: [{ host: 'a', port: 6380 }, { host: '::1', port: 6381 }], tls: true, username: 'app', password: 'p@ss',
    });
    expect(parseClusterUrl('redis+cluster://:secret@a')).toEqual({ nodes: [{ host: 'a', port: 6379 }], tls: false, password: 'secret' });
  });

  it('is undefined for a single-node URL and refuses a bad node', () => {
    expect(parseClusterUrl('redis://127.0.0.1:6379')).toBeUndefined();
    expect(parseClusterUrl('rediss://user:pw@host:6380/2')).toBeUndefined();
    expect(() => parseClusterUrl('redis+cluster://a:70000')).toThrow(/bad cluster node/);
    expect(() => parseClusterUrl('redis+cluster://a:x')).toThrow(/bad cluster node/);
  });
});
