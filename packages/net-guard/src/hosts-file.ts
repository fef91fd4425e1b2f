import { readFile, stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import type { ResolvedAddress } from './resolved-address.js';

/** How often the file's modification time is checked again, ms. */
const RECHECK_MS = 5000;

/**
 * The hosts file (`/etc/hosts`): names it maps answer before DNS, as the system resolver's
 * `files dns` order has it. Read when first asked, read again when its modification time changed
 * (checked at most every 5 s); a file that cannot be read maps nothing.
 */
export class HostsFile {
  private names = new Map<string, ResolvedAddress[]>();
  private mtimeMs = -1;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly path: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The addresses the file gives `hostname` (lower case, no trailing dot), or undefined. */
  async lookup(hostname: string): Promise<ResolvedAddress[] | undefined> {
    if (this.now() - this.checkedAt >= RECHECK_MS) await this.refresh();
    return this.names.get(hostname);
  }

  private refresh(): Promise<void> {
    this.refreshing ??= this.load().finally(() => {
      this.checkedAt = this.now();
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async load(): Promise<void> {
    try {
      const { mtimeMs } = await stat(this.path);
      if (mtimeMs === this.mtimeMs) return;
      this.names = parseHosts(await readFile(this.path, 'utf8'));
      this.mtimeMs = mtimeMs;
    } catch {
      this.names = new Map();
      this.mtimeMs = -1;
    }
  }
}

/**
 * `address name [alias...]` lines; `#` starts a comment. Names lower-cased; a name's addresses IPv4
 * first (as DNS answers are given), in file order within a family.
 */
export function parseHosts(text: string): Map<string, ResolvedAddress[]> {
  const names = new Map<string, ResolvedAddress[]>();
  for (const line of text.split('\n')) {
    const [address, ...hostnames] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (address === undefined) continue;
    // A zone id (`fe80::1%eth0`) belongs to IPv6 link-local addresses only.
    const family = isIP(address) !== 0 ? isIP(address) : isIP(address.replace(/%[^%]*$/, '')) === 6 ? 6 : 0;
    if (family === 0) continue;
    for (const name of hostnames) {
      const key = name.toLowerCase().replace(/\.$/, '');
      const list = names.get(key) ?? [];
      if (!list.some((a) => a.address === address)) list.push({ address, family: family === 6 ? 6 : 4 });
      names.set(key, list);
    }
  }
  for (const list of names.values()) list.sort((a, b) => a.family - b.family);
  return names;
}
