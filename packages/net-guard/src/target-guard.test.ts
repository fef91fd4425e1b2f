import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import type { DnsResolver, ResolvedAddress } from './dns-resolver.js';
import { TargetGuard } from './target-guard.js';

/** Answers from a table; a list of answers per name is used in turn (the last one repeats). */
class TableResolver implements DnsResolver {
  readonly calls: string[] = [];
  constructor(private readonly table: Record<string, ResolvedAddress[][]>) {}
  async resolve(hostname: string): Promise<ResolvedAddress[]> {
    this.calls.push(hostname);
    const answers = this.table[hostname];
    if (answers === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const n = this.calls.filter((h) => h === hostname).length;
    return answers[Math.min(n, answers.length) - 1] ?? [];
  }
}

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

function lookupAll(guard: TargetGuard, hostname: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    guard.lookup(hostname, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });
}

function codeOf(err: unknown): unknown {
  return err instanceof TrawlError ? { code: err.code, reason: err.details?.reason } : err;
}

describe('TargetGuard', () => {
  const resolver = new TableResolver({
    'public.test': [[v4('93.184.216.34'), v6('2606:2800:220:1:248:1893:25c8:1946')]],
    'private.test': [[v4('10.1.2.3')]],
    'mixed.test': [[v4('93.184.216.34'), v4('127.0.0.1')]],
    'metadata.test': [[v6('fd00:ec2::254')]],
    'rebind.test': [[v4('93.184.216.34')], [v4('127.0.0.1')]],
  });
  const guard = new TargetGuard({ resolver });

  it('passes public names through the lookup hook', async () => {
    await expect(lookupAll(guard, 'public.test')).resolves.toEqual([
      v4('93.184.216.34'), v6('2606:2800:220:1:248:1893:25c8:1946'),
    ]);
  });

  it('answers single-address lookups with the wanted family', async () => {
    const one = await new Promise((resolve) => {
      guard.lookup('public.test', { family: 6 }, (_err, address, family) => resolve({ address, family }));
    });
    expect(one).toEqual({ address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 });
  });

  it.each([
    ['private.test', 'private'],
    ['mixed.test', 'loopback'],
    ['metadata.test', 'cloud-metadata'],
  ])('refuses %s at lookup time (%s)', async (host, reason) => {
    await expect(lookupAll(guard, host).catch(codeOf)).resolves.toEqual({ code: 'SCRAPE_BLOCKED_TARGET', reason });
  });

  it('checks every resolution, so a rebinding name is refused when it turns private', async () => {
    await expect(guard.resolveChecked('rebind.test')).resolves.toEqual([v4('93.184.216.34')]);
    await expect(lookupAll(guard, 'rebind.test').catch(codeOf)).resolves.toEqual({
      code: 'SCRAPE_BLOCKED_TARGET', reason: 'loopback',
    });
  });

  it.each(['localhost', 'LOCALHOST.', 'api.localhost', '127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '169.254.169.254'])(
    'refuses %s without DNS',
    (host) => {
      const before = resolver.calls.length;
      expect(() => guard.checkHostname(host)).toThrow(expect.objectContaining({ code: 'SCRAPE_BLOCKED_TARGET' }));
      expect(resolver.calls.length).toBe(before);
    },
  );

  it('passes DNS failures through with their code', async () => {
    await expect(lookupAll(guard, 'missing.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('allows everything when private targets are allowed, and exact exempt addresses', async () => {
    const open = new TargetGuard({ resolver, allowPrivateTargets: true });
    expect(() => open.checkHostname('localhost')).not.toThrow();
    await expect(lookupAll(open, 'private.test')).resolves.toEqual([v4('10.1.2.3')]);
    const exempt = new TargetGuard({ resolver, exemptAddresses: ['10.1.2.3'] });
    await expect(lookupAll(exempt, 'private.test')).resolves.toEqual([v4('10.1.2.3')]);
    expect(() => exempt.checkAddress('10.1.2.4')).toThrow(TrawlError);
  });
});
