import { lookup } from 'node:dns/promises';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Turns a host name into addresses. Swappable so tests can map fake names (or simulate DNS rebinding)
 * without real DNS. Failures should carry the usual Node codes (`ENOTFOUND`, `EAI_AGAIN`).
 */
export interface DnsResolver {
  resolve(hostname: string): Promise<ResolvedAddress[]>;
}

/** The operating system's resolver (`getaddrinfo` through `dns.lookup`), as browsers use. */
export class SystemDnsResolver implements DnsResolver {
  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    const found = await lookup(hostname, { all: true, verbatim: true });
    return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  }
}
