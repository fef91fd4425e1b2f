import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '@trawl/config';
import { workerConfigSchema } from './config.js';

describe('worker config: DNS', () => {
  it('defaults to the system\'s servers, a 5 s limit and a 300 s cache', () => {
    const c = loadConfig(workerConfigSchema, {});
    expect(c).toMatchObject({ TRAWL_DNS_SERVERS: [], TRAWL_DNS_TIMEOUT_MS: 5000, TRAWL_DNS_CACHE_MAX_TTL_SEC: 300 });
  });

  it('takes IP addresses with or without a port', () => {
    const c = loadConfig(workerConfigSchema, { TRAWL_DNS_SERVERS: '10.0.0.10, 127.0.0.1:5353,::1,[2001:db8::1]:53,[::1]' });
    expect(c.TRAWL_DNS_SERVERS).toEqual(['10.0.0.10', '127.0.0.1:5353', '::1', '[2001:db8::1]:53', '[::1]']);
  });

  it.each(['dns.example.com', '10.0.0.10:0', '10.0.0.10:70000', '2001:db8::1:53x', 'fe80::1%eth0', '[10.0.0.10]'])('refuses %s with the variable named', (server) => {
    expect(() => loadConfig(workerConfigSchema, { TRAWL_DNS_SERVERS: server })).toThrow(ConfigError);
    expect(() => loadConfig(workerConfigSchema, { TRAWL_DNS_SERVERS: server })).toThrow(/TRAWL_DNS_SERVERS/);
  });

  it('limits a lookup below the connection\'s own 10 s', () => {
    expect(() => loadConfig(workerConfigSchema, { TRAWL_DNS_TIMEOUT_MS: '10000' })).toThrow(/TRAWL_DNS_TIMEOUT_MS/);
  });
});
