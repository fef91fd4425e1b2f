import type { LookupFunction } from 'node:net';
import type { DnsResolver, ResolvedAddress } from './dns-resolver.js';

/**
 * A `net.connect` / `tls.connect` `lookup` hook answering from `resolve` instead of the system's
 * `getaddrinfo`: the family asked for (or every address, IPv4 first, for Node's Happy Eyeballs with
 * `all`), `ENOTFOUND` when that family has none, and `resolve`'s own failure otherwise.
 */
export function lookupHook(resolve: (hostname: string) => Promise<ResolvedAddress[]>): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (found) => {
        const wanted = options.family === 4 || options.family === 'IPv4' ? 4
          : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
        const usable = wanted === 0 ? found : found.filter((a) => a.family === wanted);
        const first = usable[0];
        if (first === undefined) {
          const err = Object.assign(new Error(`No IPv${wanted} address for ${hostname}`), { code: 'ENOTFOUND' });
          callback(err, '', 4);
        } else if (options.all === true) {
          (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, usable);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 4),
    );
  };
}

/** {@link lookupHook} of a resolver, checking nothing: for the operator's own endpoints (proxies), not targets. */
export function resolverLookup(resolver: DnsResolver): LookupFunction {
  return lookupHook((hostname) => resolver.resolve(hostname));
}
