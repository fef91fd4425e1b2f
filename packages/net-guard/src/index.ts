/**
 * The network guard: which addresses a scrape, a browser or a webhook may reach. The address
 * classifier ({@link isBlockedAddress}) is shared by the API's early webhook check and the engines'
 * connect-time checks, so both apply the same ranges. Node built-ins, undici (the guarded connector is
 * an undici connector) and `TrawlError` only: no engine, no queue.
 *
 * @packageDocumentation
 */
export { isBlockedAddress, type BlockedAddressResult } from './is-blocked-address.js';
export {
  CachingDnsResolver,
  SystemDnsResolver,
  type CachingDnsResolverOptions,
  type DnsResolver,
  type DnsSource,
  type ResolvedAddress,
} from './dns-resolver.js';
export { lookupHook, resolverLookup } from './lookup-hook.js';
export {
  TargetGuard,
  type GuardedAgentOptions,
  type GuardedConnectOptions,
  type TargetGuardOptions,
} from './target-guard.js';
