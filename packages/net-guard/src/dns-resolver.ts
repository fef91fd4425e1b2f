import { lookup, Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { HostsFile } from './hosts-file.js';
import type { ResolvedAddress } from './resolved-address.js';

export type { ResolvedAddress } from './resolved-address.js';

/**
 * Turns a host name into addresses. Swappable so tests can map fake names (or simulate DNS rebinding)
 * without real DNS. Failures should carry the usual Node codes (`ENOTFOUND`, `EAI_AGAIN`).
 */
export interface DnsResolver {
  resolve(hostname: string): Promise<ResolvedAddress[]>;
}

/**
 * The operating system's resolver (`getaddrinfo` through `dns.lookup`). It runs on libuv's thread
 * pool, where at most two lookups of a process run at once: a name whose DNS server does not answer
 * holds one for the resolver's whole timeout (10 s with glibc's defaults). {@link CachingDnsResolver}
 * uses it only for names DNS does not know.
 */
export class SystemDnsResolver implements DnsResolver {
  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    const found = await lookup(hostname, { all: true, verbatim: true });
    return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  }
}

/** Where an answer of {@link CachingDnsResolver} came from (`failed`: none did). */
export type DnsSource = 'cache' | 'hosts' | 'dns' | 'system' | 'failed';

/** Options of {@link CachingDnsResolver}. */
export interface CachingDnsResolverOptions {
  /** DNS servers (`ip` or `ip:port`). Default: the system's (`/etc/resolv.conf`). */
  servers?: readonly string[];
  /** Longest a lookup may take, every attempt and the fallback included, ms. Default 5000. */
  timeoutMs?: number;
  /** Longest an answer is kept, whatever its TTL, seconds; 0 keeps none. Default 300. */
  maxTtlSeconds?: number;
  /** How long a failed lookup is remembered, ms (a burst of pages on a dead host asks once). Default 2000. */
  failureTtlMs?: number;
  /** Names kept at most (least recently used go first). Default 10000. */
  maxEntries?: number;
  /** Hosts file read before DNS. Default `/etc/hosts`. */
  hostsFile?: string;
  /** Asked for names DNS says do not exist (search domains, other name services). Default {@link SystemDnsResolver}. */
  fallback?: DnsResolver;
  /** Told of every lookup: where its answer came from and how long it took, seconds. */
  observe?: (source: DnsSource, seconds: number) => void;
  now?: () => number;
}

/**
 * RFC 8305's resolution delay: once one address family answered with addresses, how long the other
 * is waited for, ms.
 */
const RESOLUTION_DELAY_MS = 50;

/** Answers of "no such name" or "no such record": the name may still be known elsewhere. */
const NOT_IN_DNS = new Set(['ENOTFOUND', 'ENODATA', 'ENOENT']);
/** A server that refused us quickly: the system resolver may be configured to go elsewhere. */
const REFUSED = new Set(['ECONNREFUSED', 'EREFUSED', 'ENOTINITIALIZED']);
/** Names DNS cannot carry: no other resolver will find them. */
const BAD_NAME = new Set(['EBADNAME', 'EBADFAMILY', 'EFORMERR']);

interface Entry {
  expires: number;
  addresses?: ResolvedAddress[];
  code?: 'ENOTFOUND' | 'EAI_AGAIN';
}

/**
 * Resolves host names the way a high-volume crawler must: the hosts file first, then DNS through
 * c-ares (asynchronous UDP, no thread pool: a server that does not answer for one name delays only
 * the lookups of that name), then the system resolver for names DNS does not know (search domains,
 * other name services). Answers are cached for their TTL (at most `maxTtlSeconds`), lookups of a name
 * in flight are shared, failures are remembered briefly, and every lookup ends within `timeoutMs`.
 * Addresses come IPv4 first (a connection tries the others after them: Node's Happy Eyeballs).
 * Failures carry `ENOTFOUND` (no such name: not retried) or `EAI_AGAIN` (a server that failed or did
 * not answer: retryable), as `dns.lookup`'s do.
 */
export class CachingDnsResolver implements DnsResolver {
  private readonly dns: Resolver;
  private readonly hosts: HostsFile;
  private readonly fallback: DnsResolver;
  private readonly timeoutMs: number;
  private readonly maxTtlMs: number;
  private readonly failureTtlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly cache = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<ResolvedAddress[]>>();

  constructor(private readonly options: CachingDnsResolverOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 5000;
    // c-ares doubles its wait on each try: two tries fit in the time allowed.
    this.dns = new Resolver({ timeout: Math.max(1, Math.floor(this.timeoutMs / 3)), tries: 2 });
    if (options.servers !== undefined && options.servers.length > 0) this.dns.setServers([...options.servers]);
    this.now = options.now ?? Date.now;
    this.hosts = new HostsFile(options.hostsFile ?? '/etc/hosts', this.now);
    this.fallback = options.fallback ?? new SystemDnsResolver();
    this.maxTtlMs = (options.maxTtlSeconds ?? 300) * 1000;
    this.failureTtlMs = options.failureTtlMs ?? 2000;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    const family = isIP(name);
    if (family !== 0) return [{ address: name, family: family === 6 ? 6 : 4 }];
    const started = this.now();
    const cached = this.fromCache(name);
    if (cached !== undefined) {
      this.observe('cache', started);
      if (cached.addresses !== undefined) return cached.addresses;
      throw dnsError(cached.code ?? 'EAI_AGAIN', name);
    }
    let shared = this.pending.get(name);
    if (shared === undefined) {
      shared = this.lookup(name, started).finally(() => this.pending.delete(name));
      this.pending.set(name, shared);
    }
    return shared;
  }

  /** Forgets every cached answer (the servers changed, a test). */
  clear(): void {
    this.cache.clear();
  }

  private fromCache(name: string): Entry | undefined {
    const entry = this.cache.get(name);
    if (entry === undefined) return undefined;
    if (entry.expires <= this.now()) {
      this.cache.delete(name);
      return undefined;
    }
    // Least recently used last out: a hit moves it to the end.
    this.cache.delete(name);
    this.cache.set(name, entry);
    return entry;
  }

  private remember(name: string, entry: Entry): void {
    if (entry.expires <= this.now()) return;
    this.cache.delete(name);
    this.cache.set(name, entry);
    while (this.cache.size > this.maxEntries) {
      const oldest = this.cache.keys().next().value as string;
      this.cache.delete(oldest);
    }
  }

  private async lookup(name: string, started: number): Promise<ResolvedAddress[]> {
    const fromHosts = await this.hosts.lookup(name);
    if (fromHosts !== undefined) {
      this.observe('hosts', started);
      return fromHosts;
    }
    const deadline = started + this.timeoutMs;
    let source: DnsSource = 'dns';
    try {
      let answer = await withDeadline(this.queryDns(name), deadline, this.now);
      if (answer.code !== undefined && (NOT_IN_DNS.has(answer.code) || REFUSED.has(answer.code))) {
        source = 'system';
        const found = await withDeadline(this.fallback.resolve(name), deadline, this.now).catch((err: unknown) => {
          // The system's verdict stands when it has one; a DNS refusal it could not get past stays.
          const code = codeOf(err);
          throw dnsError(code === 'ENOTFOUND' || code === 'EAI_NONAME' || code === 'EAI_NODATA' ? 'ENOTFOUND' : 'EAI_AGAIN', name);
        });
        answer = { addresses: found, ttlMs: this.maxTtlMs };
      }
      if (answer.code !== undefined) throw dnsError(BAD_NAME.has(answer.code) || NOT_IN_DNS.has(answer.code) ? 'ENOTFOUND' : 'EAI_AGAIN', name);
      const addresses = answer.addresses ?? [];
      if (addresses.length === 0) throw dnsError('ENOTFOUND', name);
      this.remember(name, { expires: this.now() + Math.min(answer.ttlMs ?? 0, this.maxTtlMs), addresses });
      this.observe(source, started);
      return addresses;
    } catch (err) {
      const code: 'ENOTFOUND' | 'EAI_AGAIN' = codeOf(err) === 'ENOTFOUND' ? 'ENOTFOUND' : 'EAI_AGAIN';
      if (this.maxTtlMs > 0) this.remember(name, { expires: this.now() + this.failureTtlMs, code });
      this.observe('failed', started);
      throw dnsError(code, name);
    }
  }

  /**
   * A and AAAA records, asked together. Once one family has addresses the other gets
   * {@link RESOLUTION_DELAY_MS} more (a server that never answers AAAA does not hold IPv4 hosts).
   * Resolves with the addresses (IPv4 first) and their shortest TTL, or with the failure's code
   * when neither family has any.
   */
  private queryDns(name: string): Promise<{ addresses?: ResolvedAddress[]; ttlMs?: number; code?: string }> {
    type Answer = { records: Array<{ address: string; ttl: number }> } | { code: string };
    const ask = (family: 4 | 6): Promise<Answer> =>
      (family === 4 ? this.dns.resolve4(name, { ttl: true }) : this.dns.resolve6(name, { ttl: true })).then(
        (records) => ({ records }),
        (err: unknown) => ({ code: codeOf(err) ?? 'EAI_AGAIN' }),
      );
    return new Promise((resolve) => {
      const answers: { 4?: Answer; 6?: Answer } = {};
      let delay: NodeJS.Timeout | undefined;
      const settle = (): void => {
        if (delay !== undefined) clearTimeout(delay);
        const addresses: ResolvedAddress[] = [];
        let ttl = Number.POSITIVE_INFINITY;
        for (const family of [4, 6] as const) {
          const answer = answers[family];
          if (answer === undefined || !('records' in answer)) continue;
          for (const r of answer.records) {
            addresses.push({ address: r.address, family });
            ttl = Math.min(ttl, r.ttl);
          }
        }
        if (addresses.length > 0) {
          resolve({ addresses, ttlMs: ttl * 1000 });
          return;
        }
        // Neither has addresses: a real failure outranks "no such record".
        const codes = [answers[4], answers[6]].map((a) => (a !== undefined && 'code' in a ? a.code : 'ENODATA'));
        resolve({ code: codes.find((c) => !NOT_IN_DNS.has(c)) ?? codes[0] ?? 'ENOTFOUND' });
      };
      const arrived = (family: 4 | 6, answer: Answer): void => {
        answers[family] = answer;
        if (answers[4] !== undefined && answers[6] !== undefined) settle();
        else if ('records' in answer && answer.records.length > 0) delay ??= setTimeout(settle, RESOLUTION_DELAY_MS);
      };
      void ask(4).then((a) => arrived(4, a));
      void ask(6).then((a) => arrived(6, a));
    });
  }

  private observe(source: DnsSource, started: number): void {
    this.options.observe?.(source, (this.now() - started) / 1000);
  }
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function dnsError(code: 'ENOTFOUND' | 'EAI_AGAIN', hostname: string): Error {
  const what = code === 'ENOTFOUND' ? 'No address for' : 'No DNS answer in time, or a failing DNS server, for';
  return Object.assign(new Error(`${what} ${hostname}`), { code, hostname });
}

/** `work`, or an `EAI_AGAIN` failure at `deadline` (the work itself is not stopped: c-ares ends it). */
function withDeadline<T>(work: Promise<T>, deadline: number, now: () => number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(Object.assign(new Error('DNS lookup timed out'), { code: 'EAI_AGAIN' })), Math.max(0, deadline - now()));
    work.then(
      (v) => { clearTimeout(timer); resolve(v); },
      (e: unknown) => { clearTimeout(timer); reject(e); },
    );
  });
}
