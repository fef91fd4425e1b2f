import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeDnsServer, waitFor } from '@trawl/testing';
import { CachingDnsResolver, type CachingDnsResolverOptions, type DnsResolver, type DnsSource } from './dns-resolver.js';

/** A fallback resolver that records the names it was asked for. */
class RecordingFallback implements DnsResolver {
  readonly asked: string[] = [];
  constructor(private readonly known: Record<string, string>) {}
  resolve(hostname: string) {
    this.asked.push(hostname);
    const address = this.known[hostname];
    return address === undefined
      ? Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }))
      : Promise.resolve([{ address, family: 4 as const }]);
  }
}

let dns: FakeDnsServer;
let dir: string;
let hostsFile: string;

beforeAll(async () => {
  dns = await FakeDnsServer.start({
    'site.test': { a: ['203.0.113.10'], aaaa: ['2001:db8::10'], ttl: 60 },
    'v4only.test': { a: ['203.0.113.11'] },
    'short-ttl.test': { a: ['203.0.113.12'], ttl: 1 },
    'dead.test': { silent: true },
    'no-aaaa-answer.test': { a: ['203.0.113.13'], silent: 'AAAA' },
    'failing.test': { rcode: 'SERVFAIL' },
    'pinned.test': { a: ['203.0.113.14'] },
  });
  dir = mkdtempSync(join(tmpdir(), 'trawl-hosts-'));
  hostsFile = join(dir, 'hosts');
  writeFileSync(hostsFile, '::1 localhost ip6-localhost\n127.0.0.1 localhost\n# a comment\n198.51.100.7 pinned.test alias.test # pinned\n');
});

afterAll(async () => {
  await dns.close();
  rmSync(dir, { recursive: true, force: true });
});

const seen: DnsSource[] = [];
afterEach(() => {
  seen.length = 0;
});

function resolver(opts: CachingDnsResolverOptions = {}): CachingDnsResolver {
  return new CachingDnsResolver({
    servers: [dns.server], hostsFile, timeoutMs: 1500, fallback: new RecordingFallback({}),
    observe: (source) => seen.push(source), ...opts,
  });
}

describe('CachingDnsResolver', () => {
  it('answers A and AAAA records (IPv4 first) and serves the name from its cache after', async () => {
    const r = resolver();
    const before = dns.count('site.test');
    await expect(r.resolve('Site.Test')).resolves.toEqual([{ address: '203.0.113.10', family: 4 }, { address: '2001:db8::10', family: 6 }]);
    await expect(r.resolve('site.test')).resolves.toHaveLength(2);
    expect(dns.count('site.test') - before).toBe(2); // one A, one AAAA question
    expect(seen).toEqual(['dns', 'cache']);
  });

  it('asks once for lookups of a name made together', async () => {
    const r = resolver();
    const before = dns.count('v4only.test', 'A');
    const all = await Promise.all(Array.from({ length: 20 }, () => r.resolve('v4only.test')));
    expect(all.every((a) => a.length === 1 && a[0]!.address === '203.0.113.11')).toBe(true);
    expect(dns.count('v4only.test', 'A') - before).toBe(1);
  });

  it('asks again once the answer\'s TTL ran out, and keeps nothing past maxTtlSeconds', async () => {
    let now = 1_000_000;
    const r = resolver({ now: () => now });
    const before = dns.count('short-ttl.test', 'A');
    await r.resolve('short-ttl.test');
    now += 900;
    await r.resolve('short-ttl.test');
    expect(dns.count('short-ttl.test', 'A') - before).toBe(1);
    now += 200; // past the record's 1 s
    await r.resolve('short-ttl.test');
    expect(dns.count('short-ttl.test', 'A') - before).toBe(2);

    const capped = resolver({ now: () => now, maxTtlSeconds: 0 });
    const site = dns.count('site.test', 'A');
    await capped.resolve('site.test');
    await capped.resolve('site.test');
    expect(dns.count('site.test', 'A') - site).toBe(2);
  });

  it('a name whose server never answers delays only the lookups of that name', async () => {
    const r = resolver({ timeoutMs: 2000 });
    for (let i = 0; i < 4; i++) dns.set(`sub${i}.dead.test`, { silent: true });
    let settled = 0;
    const dead = Array.from({ length: 8 }, (_, i) => r.resolve(i < 4 ? 'dead.test' : `sub${i - 4}.dead.test`).then(
      () => 'resolved', (err: NodeJS.ErrnoException) => ({ code: err.code })).finally(() => { settled += 1; }));
    // Asked while eight lookups wait on a silent server: answered before any of them ends.
    await expect(r.resolve('v4only.test')).resolves.toHaveLength(1);
    expect(settled).toBe(0);
    // Each ends as a temporary failure (the time limit itself: 'a system resolver that does not answer in time').
    for (const outcome of await Promise.all(dead)) expect(outcome).toEqual({ code: 'EAI_AGAIN' });
  });

  it('does not remember a temporary failure: a retry asks again', async () => {
    const r = resolver({ timeoutMs: 300 });
    dns.set('flaky.test', { silent: true });
    await expect(r.resolve('flaky.test')).rejects.toMatchObject({ code: 'EAI_AGAIN', hostname: 'flaky.test' });
    dns.set('flaky.test', { a: ['203.0.113.20'] });
    await expect(r.resolve('flaky.test')).resolves.toEqual([{ address: '203.0.113.20', family: 4 }]);
    expect(seen).toEqual(['failed', 'dns']);
  });

  it('remembers "no such name" briefly: a batch of pages on a dead domain asks once', async () => {
    let now = 5_000_000;
    const r = resolver({ now: () => now, notFoundTtlMs: 2000 });
    await expect(r.resolve('expired-domain.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    const asked = dns.count('expired-domain.test', 'A');
    await expect(r.resolve('expired-domain.test')).rejects.toMatchObject({ code: 'ENOTFOUND', hostname: 'expired-domain.test' });
    expect(dns.count('expired-domain.test', 'A')).toBe(asked);
    expect(seen).toEqual(['failed', 'cache_failed']);
    now += 2001;
    dns.set('expired-domain.test', { a: ['203.0.113.21'] });
    await expect(r.resolve('expired-domain.test')).resolves.toEqual([{ address: '203.0.113.21', family: 4 }]);
    // With no cache, not even that is remembered.
    const uncached = resolver({ now: () => now, maxTtlSeconds: 0 });
    const before = dns.count('nxdomain-twice.test', 'A');
    await expect(uncached.resolve('nxdomain-twice.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(uncached.resolve('nxdomain-twice.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(dns.count('nxdomain-twice.test', 'A') - before).toBe(2);
  });

  it('does not wait for AAAA once A answered (RFC 8305 resolution delay); keeps that answer only briefly', async () => {
    let now = Date.now();
    // AAAA is never answered, and the lookup may take ten minutes: only the resolution delay ends it
    // (waiting for AAAA would outlast the test's own time limit).
    const r = resolver({ timeoutMs: 600_000, now: () => now });
    await expect(r.resolve('no-aaaa-answer.test')).resolves.toEqual([{ address: '203.0.113.13', family: 4 }]);
    const asked = dns.count('no-aaaa-answer.test', 'A');
    now += 4000;
    await r.resolve('no-aaaa-answer.test');
    expect(dns.count('no-aaaa-answer.test', 'A')).toBe(asked);
    // Not the record's 60 s: AAAA may answer next time.
    now += 2000;
    await r.resolve('no-aaaa-answer.test').catch(() => undefined);
    expect(dns.count('no-aaaa-answer.test', 'A')).toBe(asked + 1);
  });

  it('merges an AAAA answer that came after the resolution delay into the cached answer, kept for A\'s TTL from A\'s answer', async () => {
    dns.set('late-aaaa.test', { a: ['203.0.113.32'], aaaa: ['2001:db8::32'], hold: 'AAAA', ttl: 60 });
    const t0 = Date.now();
    let now = t0;
    const r = resolver({ timeoutMs: 600_000, now: () => now });
    await expect(r.resolve('late-aaaa.test')).resolves.toEqual([{ address: '203.0.113.32', family: 4 }]);
    // AAAA answers 4 s later (within the 5 s a partial answer is kept); the clock stands still after.
    now = t0 + 4000;
    dns.release('late-aaaa.test', 'AAAA');
    await waitFor(async () => (await r.resolve('late-aaaa.test')).length === 2, { what: 'the late AAAA answer in the cache' });
    await expect(r.resolve('late-aaaa.test')).resolves.toEqual([{ address: '203.0.113.32', family: 4 }, { address: '2001:db8::32', family: 6 }]);
    const asked = dns.count('late-aaaa.test', 'A');
    // Past a partial answer's 5 s, within A's 60 s counted from A's answer (t0): not asked again.
    now = t0 + 59_000;
    await r.resolve('late-aaaa.test');
    expect(dns.count('late-aaaa.test', 'A')).toBe(asked);
    // Counted from AAAA's answer instead, it would still be cached at t0 + 61 s.
    now = t0 + 61_000;
    await r.resolve('late-aaaa.test');
    expect(dns.count('late-aaaa.test', 'A')).toBe(asked + 1);
  });

  it('waits for A when AAAA answers first, so an IPv4-only network is not left with IPv6 alone', async () => {
    dns.set('slow-a.test', { a: ['203.0.113.30'], aaaa: ['2001:db8::30'], delayMs: { A: 150 } });
    const r = resolver({ timeoutMs: 5000 });
    await expect(r.resolve('slow-a.test')).resolves.toEqual([{ address: '203.0.113.30', family: 4 }, { address: '2001:db8::30', family: 6 }]);
  });

  it('an A query never answered gives the IPv6 addresses at the time limit, kept only briefly', async () => {
    dns.set('silent-a.test', { a: ['203.0.113.31'], aaaa: ['2001:db8::31'], silent: 'A' });
    let now = Date.now();
    const r = resolver({ timeoutMs: 600, now: () => now });
    await expect(r.resolve('silent-a.test')).resolves.toEqual([{ address: '2001:db8::31', family: 6 }]);
    const asked = dns.count('silent-a.test', 'A');
    now += 5001;
    dns.set('silent-a.test', { a: ['203.0.113.31'], aaaa: ['2001:db8::31'] });
    await expect(r.resolve('silent-a.test')).resolves.toHaveLength(2);
    expect(dns.count('silent-a.test', 'A')).toBe(asked + 1);
  });

  it('reads the hosts file before DNS (IPv4 first)', async () => {
    const r = resolver();
    const before = dns.count('pinned.test');
    await expect(r.resolve('pinned.test')).resolves.toEqual([{ address: '198.51.100.7', family: 4 }]);
    await expect(r.resolve('ALIAS.test')).resolves.toEqual([{ address: '198.51.100.7', family: 4 }]);
    await expect(r.resolve('localhost')).resolves.toEqual([{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }]);
    await expect(r.resolve('ip6-localhost')).resolves.toEqual([{ address: '::1', family: 6 }]);
    expect(dns.count('pinned.test')).toBe(before);
    expect(seen).toEqual(['hosts', 'hosts', 'hosts', 'hosts']);
  });

  it('asks the system resolver for names DNS does not know, and fails with ENOTFOUND when nobody knows them', async () => {
    const fallback = new RecordingFallback({ 'svc-short': '10.1.2.3' });
    const r = resolver({ fallback });
    await expect(r.resolve('svc-short')).resolves.toEqual([{ address: '10.1.2.3', family: 4 }]);
    await expect(r.resolve('nowhere.test')).rejects.toMatchObject({ code: 'ENOTFOUND', hostname: 'nowhere.test' });
    expect(fallback.asked).toEqual(['svc-short', 'nowhere.test']);
    expect(seen).toEqual(['system', 'failed']);
  });

  it('a failing server is a temporary failure, not "no such name", and the system resolver is not asked', async () => {
    const fallback = new RecordingFallback({ 'failing.test': '10.9.9.9' });
    const r = resolver({ fallback });
    await expect(r.resolve('failing.test')).rejects.toMatchObject({ code: 'EAI_AGAIN' });
    expect(fallback.asked).toEqual([]);
  });

  it('a refusing server sends the name to the system resolver; with none, it fails', async () => {
    dns.set('refused.test', { rcode: 'REFUSED' });
    const fallback = new RecordingFallback({ 'refused.test': '10.9.9.8' });
    await expect(resolver({ fallback }).resolve('refused.test')).resolves.toEqual([{ address: '10.9.9.8', family: 4 }]);
    await expect(resolver({ fallback: null }).resolve('refused.test')).rejects.toMatchObject({ code: 'EAI_AGAIN' });
    await expect(resolver({ fallback: null }).resolve('nowhere-at-all.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('a system resolver that does not answer in time is a temporary failure', async () => {
    const never: DnsResolver = { resolve: () => new Promise(() => undefined) };
    const r = resolver({ fallback: never, timeoutMs: 400 });
    await expect(r.resolve('unknown-to-dns.test')).rejects.toMatchObject({ code: 'EAI_AGAIN' });
  });

  it('keeps a system resolver\'s answer 10 s (it gives no TTL), IPv4 first', async () => {
    let now = 9_000_000;
    const fallback: DnsResolver & { asked: number } = {
      asked: 0,
      resolve() {
        this.asked += 1;
        return Promise.resolve([{ address: '::1', family: 6 as const }, { address: '10.1.1.1', family: 4 as const }]);
      },
    };
    const r = resolver({ fallback, now: () => now });
    await expect(r.resolve('svc-other')).resolves.toEqual([{ address: '10.1.1.1', family: 4 }, { address: '::1', family: 6 }]);
    now += 9000;
    await r.resolve('svc-other');
    expect(fallback.asked).toBe(1);
    now += 1001;
    await r.resolve('svc-other');
    expect(fallback.asked).toBe(2);
  });

  it('keeps at most maxEntries names, least recently used out first', async () => {
    const r = resolver({ maxEntries: 2 });
    await r.resolve('site.test');
    await r.resolve('v4only.test');
    await r.resolve('site.test'); // used: v4only.test is now the oldest
    await r.resolve('no-aaaa-answer.test');
    const site = dns.count('site.test', 'A');
    const v4 = dns.count('v4only.test', 'A');
    await r.resolve('site.test');
    await r.resolve('v4only.test');
    expect(dns.count('site.test', 'A')).toBe(site);
    expect(dns.count('v4only.test', 'A')).toBe(v4 + 1);
  });

  it('keeps a fully qualified name (trailing dot) apart from the same name without it', async () => {
    const fallback = new RecordingFallback({ intra: '10.2.2.2' });
    const r = resolver({ fallback });
    await expect(r.resolve('intra')).resolves.toEqual([{ address: '10.2.2.2', family: 4 }]);
    // The system resolver gets `intra.` as such (no search domains) and does not know it.
    await expect(r.resolve('intra.')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(fallback.asked).toEqual(['intra', 'intra.']);
    await expect(r.resolve('intra')).resolves.toHaveLength(1);
  });

  it('gives IP literals back without a lookup', async () => {
    const r = resolver();
    await expect(r.resolve('203.0.113.9')).resolves.toEqual([{ address: '203.0.113.9', family: 4 }]);
    expect(seen).toEqual([]);
  });
});
