import { isIP, type LookupFunction, type Socket } from 'node:net';
import { TrawlError } from '@trawl/api-schema';
import { Agent, buildConnector } from 'undici';
import { SystemDnsResolver, type DnsResolver, type ResolvedAddress } from './dns-resolver.js';
import { isBlockedAddress } from './is-blocked-address.js';
import { lookupHook } from './lookup-hook.js';

/** Options of {@link TargetGuard}. */
export interface TargetGuardOptions {
  /** Turn the guard off (`TRAWL_ALLOW_PRIVATE_TARGETS=true`): any address may be reached. Default false. */
  allowPrivateTargets?: boolean;
  /** Resolver used for every connection. Default {@link SystemDnsResolver}. */
  resolver?: DnsResolver;
  /** Addresses reachable although in a blocked range (exact match, e.g. an internal proxy). Default none. */
  exemptAddresses?: readonly string[];
}

/** Connection settings of a guarded connector or agent. */
export interface GuardedConnectOptions {
  /** Verify the TLS certificate chain and host name. Default true. */
  rejectUnauthorized?: boolean;
  /** Time allowed to establish TCP (and TLS), in milliseconds. Default 10000. */
  connectTimeoutMs?: number;
}

/** Options of {@link TargetGuard.createAgent}: connection settings plus pool limits. */
export interface GuardedAgentOptions extends GuardedConnectOptions {
  /** Idle keep-alive time of pooled sockets, in milliseconds. Default 4000 (undici's). */
  keepAliveTimeoutMs?: number;
  /** Sockets per origin. Default unlimited (undici's). */
  connectionsPerOrigin?: number;
}

const LOCALHOST = /^(?:.+\.)?localhost\.?$/i;

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Refuses connections to loopback, private, link-local, unique-local and metadata addresses
 * (see {@link isBlockedAddress}). The check runs inside the connection itself: on the addresses the
 * socket is about to use (the `lookup` hook) and again on the socket's remote address, so neither a
 * redirect nor DNS rebinding between an earlier check and the connect can get through. Used by the
 * http engine and, for their destinations, by webhooks.
 */
export class TargetGuard {
  readonly allowPrivateTargets: boolean;
  private readonly resolver: DnsResolver;
  private readonly exempt: ReadonlySet<string>;

  constructor(options: TargetGuardOptions = {}) {
    this.allowPrivateTargets = options.allowPrivateTargets ?? false;
    this.resolver = options.resolver ?? new SystemDnsResolver();
    this.exempt = new Set(options.exemptAddresses ?? []);
  }

  /** Throws SCRAPE_BLOCKED_TARGET when `ip` may not be reached. */
  checkAddress(ip: string, hostname?: string): void {
    if (this.allowPrivateTargets || this.exempt.has(stripBrackets(ip))) return;
    const verdict = isBlockedAddress(ip);
    if (!verdict.blocked) return;
    throw new TrawlError('SCRAPE_BLOCKED_TARGET', 'The target resolves to an address that may not be reached.', {
      details: { reason: verdict.reason, address: ip, ...(hostname === undefined ? {} : { hostname }) },
    });
  }

  /** Throws SCRAPE_BLOCKED_TARGET for `localhost` names and blocked IP literals (no DNS). */
  checkHostname(hostname: string): void {
    if (this.allowPrivateTargets) return;
    const host = stripBrackets(hostname);
    if (LOCALHOST.test(host)) {
      throw new TrawlError('SCRAPE_BLOCKED_TARGET', 'The target is localhost.', {
        details: { reason: 'loopback', hostname: host },
      });
    }
    if (isIP(host) !== 0) this.checkAddress(host, host);
  }

  /**
   * Resolves `hostname` and checks every address (one blocked address blocks the host, so a name
   * cannot mix a public and a private record). An early, advisory check (e.g. when a webhook is
   * registered); connections made through {@link lookup}, {@link createConnector} or
   * {@link createAgent} are checked again when they connect.
   */
  async resolveChecked(hostname: string): Promise<ResolvedAddress[]> {
    this.checkHostname(hostname);
    const host = stripBrackets(hostname);
    const family = isIP(host);
    if (family !== 0) return [{ address: host, family: family === 6 ? 6 : 4 }];
    const addresses = await this.resolver.resolve(host);
    if (addresses.length === 0) {
      throw Object.assign(new Error(`No address for ${host}`), { code: 'ENOTFOUND', hostname: host });
    }
    for (const a of addresses) this.checkAddress(a.address, host);
    return addresses;
  }

  /** A `net.connect` lookup hook that resolves through the resolver and refuses blocked addresses. */
  readonly lookup: LookupFunction = lookupHook((hostname) => this.resolveChecked(hostname));

  /** An undici connector whose sockets only reach allowed addresses. */
  createConnector(options: GuardedConnectOptions = {}): buildConnector.connector {
    const base = buildConnector({
      rejectUnauthorized: options.rejectUnauthorized ?? true,
      timeout: options.connectTimeoutMs ?? 10_000,
      lookup: this.lookup,
    });
    return (connectOptions, callback) => {
      try {
        this.checkHostname(connectOptions.hostname);
      } catch (err) {
        callback(err as Error, null);
        return;
      }
      base(connectOptions, (err, socket) => {
        if (err !== null) {
          callback(err, null);
          return;
        }
        const verdict = this.verifyConnected(socket, connectOptions.hostname);
        if (verdict === undefined) callback(null, socket);
        else callback(verdict, null);
      });
    };
  }

  /** An undici Agent using {@link createConnector}. The caller owns it and closes it. */
  createAgent(options: GuardedAgentOptions = {}): Agent {
    return new Agent({
      connect: this.createConnector(options),
      ...(options.keepAliveTimeoutMs === undefined ? {} : { keepAliveTimeout: options.keepAliveTimeoutMs }),
      ...(options.connectionsPerOrigin === undefined ? {} : { connections: options.connectionsPerOrigin }),
    });
  }

  /** Last line of defence: the address the socket actually reached, whatever resolved it. */
  private verifyConnected(socket: Socket, hostname: string): Error | undefined {
    if (this.allowPrivateTargets) return undefined;
    const remote = socket.remoteAddress;
    try {
      if (remote === undefined) throw new TrawlError('SCRAPE_BLOCKED_TARGET', 'The connected address is unknown.');
      this.checkAddress(remote, hostname);
      return undefined;
    } catch (err) {
      socket.destroy();
      return err as Error;
    }
  }
}
