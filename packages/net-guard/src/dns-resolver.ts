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
 * uses it only for names DNS does not know, or when the DNS server refuses.
 */
export class SystemDnsResolver implements DnsResolver {
  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    const found = await lookup(hostname, { all: true, verbatim: true });
    return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  }
}

/**
 * Where an answer of {@link CachingDnsResolver} came from: `cache` (a name resolved earlier),
 * `hosts`, `dns`, `system` (the fallback); `failed` (asked, and no address) or `cache_failed` (a
 * remembered "no such name").
 */
export type DnsSource = 'cache' | 'hosts' | 'dns' | 'system' | 'failed' | 'cache_failed';

/** Options of {@link CachingDnsResolver}. */
export interface CachingDnsResolverOptions {
  /** DNS servers (`ip` or `ip:port`). Default: the system's (`/etc/resolv.conf`). */
  servers?: readonly string[];
  /** Longest a lookup may take, every attempt and the fallback included, ms. Default 5000. */
  timeoutMs?: number;
  /** Longest an answer is kept, whatever its TTL, seconds; 0 keeps none (nor a "no such name"). Default 300. */
  maxTtlSeconds?: number;
  /**
   * How long a name found not to exist is remembered, ms (a batch of pages on a dead domain asks
   * once). A temporary failure (no answer, a failing server) is not remembered: a retry asks again.
   * Default 2000.
   */
  notFoundTtlMs?: number;
  /** Names kept at most (least recently used go first). Default 10000. */
  maxEntries?: number;
  /** Hosts file read before DNS. Default `/etc/hosts`. */
  hostsFile?: string;
  /**
   * Asked for names DNS says do not exist, or when the DNS server refuses (search domains, other
   * name services); `null`: nobody. Default {@link SystemDnsResolver}.
   */
  fallback?: DnsResolver | null;
  /** Told of every lookup: where its answer came from and how long it took, seconds. */
  observe?: (source: DnsSource, seconds: number) => void;
  now?: () => number;
}

/** RFC 8305's resolution delay: once A answered with addresses, how long AAAA is waited for, ms. */
const RESOLUTION_DELAY_MS = 50;
/** Longest an answer missing a family that failed (not one that has no records) is kept, ms. */
const PARTIAL_TTL_MS = 5000;
/** How long an answer of the system resolver (which gives no TTL) is kept, ms. */
const SYSTEM_TTL_MS = 10_000;

/** Answers of "no such name" or "no such record": the name may still be known elsewhere. */
const NOT_IN_DNS = new Set(['ENOTFOUND', 'ENODATA', 'ENOENT']);
/** A server that refused us quickly: the system resolver may be configured to go elsewhere. */
const REFUSED = new Set(['ECONNREFUSED', 'EREFUSED', 'ENOTINITIALIZED']);
/** Names DNS cannot carry: no other resolver will find them. */
const BAD_NAME = new Set(['EBADNAME', 'EBADFAMILY']);

type DnsErrorCode = 'ENOTFOUND' | 'EAI_AGAIN';

interface Entry {
  expires: number;
  addresses?: ResolvedAddress[];
  /** A remembered "no such name". */
  notFound?: true;
}

/** What DNS said of a name: its addresses (IPv4 first) and how long they may be kept, or a failure's code. */
type DnsAnswer = { addresses: ResolvedAddress[]; ttlMs: number } | { code: string };

/**
 * Resolves host names the way a high-volume crawler must: the hosts file first, then DNS through
 * c-ares (asynchronous UDP, no thread pool: a server that does not answer for one name delays only
 * the lookups of that name), then the system resolver for names DNS does not know (search domains,
 * other name services). Answers are cached for their TTL (at most `maxTtlSeconds`), lookups of a name
 * in flight are shared, a name that does not exist is remembered briefly, and every lookup ends
 * within `timeoutMs`. Addresses come IPv4 first (a connection tries the others after them: Node's
 * Happy Eyeballs). Failures carry `ENOTFOUND` (no such name: not retried) or `EAI_AGAIN` (a server
 * that failed or did not answer: retryable), as `dns.lookup`'s do.
 */
export class CachingDnsResolver implements DnsResolver {
  private readonly dns: Resolver;
  private readonly hosts: HostsFile;
  private readonly fallback: DnsResolver | null;
  private readonly timeoutMs: number;
  private readonly maxTtlMs: number;
  private readonly notFoundTtlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly cache = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<ResolvedAddress[]>>();

  constructor(private readonly options: CachingDnsResolverOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 5000;
    // c-ares doubles its wait on each try (tries count per server): two tries of one server fit in
    // the time allowed. The lookup is cut at `timeoutMs` whatever the servers.
    this.dns = new Resolver({ timeout: Math.max(1, Math.floor(this.timeoutMs / 3)), tries: 2 });
    if (options.servers !== undefined && options.servers.length > 0) this.dns.setServers([...options.servers]);
    this.now = options.now ?? Date.now;
    this.hosts = new HostsFile(options.hostsFile ?? '/etc/hosts', this.now);
    this.fallback = options.fallback === undefined ? new SystemDnsResolver() : options.fallback;
    this.maxTtlMs = (options.maxTtlSeconds ?? 300) * 1000;
    this.notFoundTtlMs = options.notFoundTtlMs ?? 2000;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    const family = isIP(name);
    if (family !== 0) return [{ address: name, family: family === 6 ? 6 : 4 }];
    const started = this.now();
    // A fully qualified name (trailing dot) keeps it, for the system resolver (no search domains) and
    // as its own key: `intra.` and `intra` may be different names.
    const key = hostname.endsWith('.') ? `${name}.` : name;
    const cached = this.fromCache(key);
    if (cached?.addresses !== undefined) {
      this.observe('cache', started);
      return cached.addresses.slice();
    }
    if (cached?.notFound) {
      this.observe('cache_failed', started);
      throw dnsError('ENOTFOUND', name);
    }
    let shared = this.pending.get(key);
    if (shared === undefined) {
      shared = this.lookup(name, key, started).finally(() => this.pending.delete(key));
      this.pending.set(key, shared);
    }
    return (await shared).slice();
  }

  private fromCache(name: string): Entry | undefined {
    const entry = this.cache.get(name);
    if (entry === undefined) return undefined;
    if (entry.expires <= this.now()) {
      this.cache.delete(name);
      return undefined;
    }
    // Least recently used first out: a hit moves it to the end.
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

  /** `name`: lower case, no trailing dot (asked of DNS); `key`: the cache's, as the system resolver gets it. */
  private async lookup(name: string, key: string, started: number): Promise<ResolvedAddress[]> {
    const fromHosts = await this.hosts.lookup(name);
    if (fromHosts !== undefined) {
      this.observe('hosts', started);
      return fromHosts;
    }
    const deadline = started + this.timeoutMs;
    try {
      let stored: { entry: Entry; at: number } | undefined;
      const answer = await this.queryDns(name, deadline, (late) => {
        // The family the resolution delay cut off answered after all: the entry, if it is still the
        // one stored then, gets its addresses and the TTL of a complete answer (never past
        // `maxTtlSeconds` from when it was stored).
        if (stored === undefined || this.cache.get(key) !== stored.entry) return;
        const expires = Math.min(this.now() + late.ttlMs, stored.at + this.maxTtlMs);
        if (expires > this.now()) this.remember(key, { expires, addresses: late.addresses });
        else this.cache.delete(key);
      });
      if ('addresses' in answer) {
        const addresses = this.found(key, answer.addresses, answer.ttlMs, 'dns', started);
        const entry = this.cache.get(key);
        if (entry !== undefined) stored = { entry, at: this.now() };
        return addresses;
      }
      const fallback = this.fallback;
      if (fallback === null || !(NOT_IN_DNS.has(answer.code) || REFUSED.has(answer.code))) {
        throw dnsError(BAD_NAME.has(answer.code) || NOT_IN_DNS.has(answer.code) ? 'ENOTFOUND' : 'EAI_AGAIN', name);
      }
      const found = await withDeadline(fallback.resolve(key), deadline, this.now).catch((err: unknown) => {
        // The system's "no such name" stands; anything else (its own timeout, ours) is temporary.
        const code = codeOf(err);
        throw dnsError(code === 'ENOTFOUND' || code === 'EAI_NONAME' || code === 'EAI_NODATA' ? 'ENOTFOUND' : 'EAI_AGAIN', name);
      });
      if (found.length === 0) throw dnsError('ENOTFOUND', name);
      return this.found(key, ipv4First(found), SYSTEM_TTL_MS, 'system', started);
    } catch (err) {
      const code: DnsErrorCode = codeOf(err) === 'ENOTFOUND' ? 'ENOTFOUND' : 'EAI_AGAIN';
      if (code === 'ENOTFOUND' && this.maxTtlMs > 0) this.remember(key, { expires: this.now() + this.notFoundTtlMs, notFound: true });
      this.observe('failed', started);
      throw dnsError(code, name);
    }
  }

  private found(key: string, addresses: ResolvedAddress[], ttlMs: number, source: DnsSource, started: number): ResolvedAddress[] {
    this.remember(key, { expires: this.now() + Math.min(ttlMs, this.maxTtlMs), addresses });
    this.observe(source, started);
    return addresses;
  }

  /**
   * A and AAAA records, asked together, until `deadline`. Once A has addresses, AAAA gets
   * {@link RESOLUTION_DELAY_MS} more (RFC 8305: a server slow or silent on AAAA does not hold IPv4
   * hosts); AAAA first waits for A, so an IPv4-only network is not left with IPv6 addresses alone.
   * An answer missing a family that failed or was cut off (not one with no records) is kept at most
   * {@link PARTIAL_TTL_MS}; should a family cut off answer later (records, or none), `late` is told
   * the complete answer (its TTL counted from now, the earlier family's from its own arrival). Neither
   * family with addresses: the more telling failure's code.
   */
  private queryDns(name: string, deadline: number, late?: (answer: { addresses: ResolvedAddress[]; ttlMs: number }) => void): Promise<DnsAnswer> {
    const ask = (family: 4 | 6): Promise<Part> =>
      (family === 4 ? this.dns.resolve4(name, { ttl: true }) : this.dns.resolve6(name, { ttl: true })).then(
        (records) => ({ records, at: this.now() }),
        (err: unknown) => ({ code: codeOf(err) ?? 'EAI_AGAIN' }),
      );
    return new Promise((resolve) => {
      const parts: Parts = {};
      let settled = false;
      const settle = (): void => {
        if (settled) return;
        settled = true;
        clearTimeout(cutoff);
        clearTimeout(delay);
        const { addresses, ttlMs, complete } = combine(parts, this.now());
        if (addresses.length > 0) {
          resolve({ addresses, ttlMs: complete ? ttlMs : Math.min(ttlMs, PARTIAL_TTL_MS) });
          return;
        }
        // Neither has addresses: a real failure (or no answer at all) outranks "no such record".
        const codes = [parts[4], parts[6]].map((p) => (p === undefined ? 'ETIMEOUT' : 'code' in p ? p.code : 'ENODATA'));
        resolve({ code: codes.find((c) => !NOT_IN_DNS.has(c)) ?? codes.find((c) => c === 'ENOTFOUND') ?? 'ENODATA' });
      };
      const cutoff = setTimeout(settle, Math.max(0, deadline - this.now()));
      let delay: NodeJS.Timeout | undefined;
      const arrived = (family: 4 | 6, part: Part): void => {
        const partial = settled ? combine(parts, this.now()) : undefined;
        parts[family] = part;
        if (partial !== undefined) {
          // After the answer: complete now, with addresses, and not before.
          const whole = combine(parts, this.now());
          if (!partial.complete && whole.complete && whole.addresses.length > 0) late?.({ addresses: whole.addresses, ttlMs: whole.ttlMs });
        } else if (parts[4] !== undefined && parts[6] !== undefined) settle();
        else if (family === 4 && 'records' in part && part.records.length > 0) delay = setTimeout(settle, RESOLUTION_DELAY_MS);
      };
      void ask(4).then((p) => arrived(4, p));
      void ask(6).then((p) => arrived(6, p));
    });
  }

  private observe(source: DnsSource, started: number): void {
    this.options.observe?.(source, (this.now() - started) / 1000);
  }
}

/** One family's answer: its records and when they arrived (`now()`), or a failure's code. */
type Part = { records: Array<{ address: string; ttl: number }>; at: number } | { code: string };
type Parts = { 4?: Part; 6?: Part };

/**
 * The addresses of the families that answered (IPv4 first), the least time left of their TTLs at
 * `now`, and whether every family answered (with records, or "no such record").
 */
function combine(parts: Parts, now: number): { addresses: ResolvedAddress[]; ttlMs: number; complete: boolean } {
  const addresses: ResolvedAddress[] = [];
  let ttlMs = Number.POSITIVE_INFINITY;
  let complete = true;
  for (const family of [4, 6] as const) {
    const part = parts[family];
    if (part !== undefined && 'records' in part) {
      for (const r of part.records) {
        addresses.push({ address: r.address, family });
        ttlMs = Math.min(ttlMs, r.ttl * 1000 - (now - part.at));
      }
    } else if (part === undefined || !NOT_IN_DNS.has(part.code)) {
      complete = false;
    }
  }
  return { addresses, ttlMs: Math.max(0, ttlMs), complete };
}

function ipv4First(addresses: ResolvedAddress[]): ResolvedAddress[] {
  return addresses.slice().sort((a, b) => a.family - b.family);
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function dnsError(code: DnsErrorCode, hostname: string): Error {
  const what = code === 'ENOTFOUND' ? 'No address for' : 'No DNS answer in time, or a failing DNS server, for';
  return Object.assign(new Error(`${what} ${hostname}`), { code, hostname });
}

/** `work`, or an `EAI_AGAIN` failure at `deadline` (the work itself is not stopped: it ends on its own). */
function withDeadline<T>(work: Promise<T>, deadline: number, now: () => number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(Object.assign(new Error('DNS lookup timed out'), { code: 'EAI_AGAIN' })), Math.max(0, deadline - now()));
    work.then(
      (v) => { clearTimeout(timer); resolve(v); },
      (e: unknown) => { clearTimeout(timer); reject(e); },
    );
  });
}
