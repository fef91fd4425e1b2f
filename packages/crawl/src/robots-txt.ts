import { encodeForComparison } from './percent-encoding.js';
import { parseHttpUrl } from './parse-http-url.js';
import { matchesRobotsRule, robotsRule, type RobotsRule } from './robots-pattern.js';

/** Rules of one robots.txt, queried per URL and user agent. */
export interface RobotsRules {
  /**
   * Whether `userAgent` may fetch `url` (absolute, or a path starting with `/`). `userAgent` is the
   * crawler's product token (`TrawlBot`) or a full User-Agent header, whose `name/version` tokens are
   * then tried. `/robots.txt` itself is always allowed; an unparsable URL is not robots.txt's business
   * (allowed).
   */
  isAllowed(url: string, userAgent: string): boolean;
  /** `Crawl-delay` of the group that applies to `userAgent`, in seconds; undefined when it has none. */
  crawlDelaySec(userAgent: string): number | undefined;
  /** Absolute http(s) URLs of the `Sitemap:` lines (global, not per group), in order, without duplicates. */
  readonly sitemaps: string[];
}

/** Options of {@link parseRobotsTxt}. */
export interface ParseRobotsTxtOptions {
  /** URL of the robots.txt, to resolve relative `Sitemap:` values (dropped without it). */
  baseUrl?: string;
}

/**
 * Characters of robots.txt read (about 512 KiB). RFC 9309 lets crawlers stop at 500 KiB or more;
 * Google does the same. What follows is ignored, never an error.
 */
export const MAX_ROBOTS_TXT_CHARS = 512 * 1024;

interface Group {
  rules: RobotsRule[];
  crawlDelaySec: number | undefined;
}

const KEYS: Record<string, 'user-agent' | 'allow' | 'disallow' | 'crawl-delay' | 'sitemap'> = {
  'user-agent': 'user-agent', useragent: 'user-agent', 'user agent': 'user-agent',
  allow: 'allow',
  disallow: 'disallow', dissallow: 'disallow', dissalow: 'disallow', disalow: 'disallow', disallaw: 'disallow',
  'crawl-delay': 'crawl-delay', crawldelay: 'crawl-delay', 'crawl delay': 'crawl-delay',
  sitemap: 'sitemap', 'site-map': 'sitemap',
};

/**
 * Parses robots.txt per RFC 9309. Lines are `key: value` with `#` comments; keys are case-insensitive
 * (with a few common misspellings). Consecutive `User-agent` lines open a group that the following
 * `Allow`/`Disallow`/`Crawl-delay` lines belong to; groups naming the same agent are merged. For a user
 * agent, the group with the longest product token equal to one of the agent's tokens (or a `-`-separated
 * prefix of one: a `trawlbot` group applies to `trawlbot-news`) wins, else the `*` group, else
 * everything is allowed. Within the group the longest matching pattern wins and Allow wins ties; `*` and
 * a final `$` are wildcards; paths and patterns are compared with normalised percent-encoding.
 * `Crawl-delay` (not in the RFC) is per group, first valid value wins. `Sitemap` lines are global.
 * Malformed lines are skipped; this never throws. Empty text allows everything.
 */
export function parseRobotsTxt(text: string, opts: ParseRobotsTxtOptions = {}): RobotsRules {
  const groups = new Map<string, Group>();
  const sitemaps = new Set<string>();
  let current: Group[] = [];
  let inAgentRun = false;
  const body = String(text ?? '').slice(0, MAX_ROBOTS_TXT_CHARS).replace(/^\uFEFF/, '');
  for (const rawLine of body.split(/\r\n|\r|\n/)) {
    const hash = rawLine.indexOf('#');
    const line = hash >= 0 ? rawLine.slice(0, hash) : rawLine;
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const key = KEYS[line.slice(0, colon).trim().toLowerCase().replace(/\s+/g, ' ')];
    const value = line.slice(colon + 1).trim();
    if (key === 'sitemap') {
      const url = resolveSitemap(value, opts.baseUrl);
      if (url !== null) sitemaps.add(url);
    } else if (key === 'user-agent') {
      if (!inAgentRun) current = [];
      inAgentRun = true;
      const agent = agentToken(value);
      if (agent === null) continue;
      let group = groups.get(agent);
      if (group === undefined) {
        group = { rules: [], crawlDelaySec: undefined };
        groups.set(agent, group);
      }
      if (!current.includes(group)) current.push(group);
    } else if (key !== undefined) {
      inAgentRun = false;
      for (const group of current) addToGroup(group, key, value);
    }
  }
  return new ParsedRobots(groups, [...sitemaps]);
}

function addToGroup(group: Group, key: 'allow' | 'disallow' | 'crawl-delay', value: string): void {
  if (key === 'crawl-delay') {
    if (group.crawlDelaySec === undefined && /^(\d+(\.\d*)?|\.\d+)$/.test(value)) group.crawlDelaySec = Number(value);
    return;
  }
  const rule = robotsRule(key === 'allow', value);
  if (rule !== null) group.rules.push(rule);
}

/** Product token of a User-agent value: `*`, or the leading `[a-z0-9_-]` run, lowercase (`Googlebot/2.1` -> `googlebot`). */
function agentToken(value: string): string | null {
  if (value.startsWith('*')) return '*';
  const match = /^[a-z0-9_-]+/i.exec(value);
  return match === null ? null : match[0].toLowerCase();
}

function resolveSitemap(value: string, baseUrl: string | undefined): string | null {
  let absolute = value;
  if (baseUrl !== undefined) {
    try {
      absolute = new URL(value, baseUrl).href;
    } catch {
      return null;
    }
  }
  const parsed = parseHttpUrl(absolute);
  return parsed.ok ? parsed.url.href : null;
}

/**
 * Product tokens of a user agent, lowercase: the string itself when it is a bare token (`TrawlBot`),
 * else each `name/` that starts the string or follows a space, `(` or `;`
 * (`Mozilla/5.0 (compatible; TrawlBot/1.0; +https://x.dev/bot)` -> `mozilla`, `trawlbot`).
 */
function userAgentTokens(userAgent: string): string[] {
  const ua = userAgent.trim().toLowerCase();
  if (/^[a-z0-9_-]+$/.test(ua)) return [ua];
  const tokens = new Set<string>();
  for (const m of ua.matchAll(/(?:^|[\s(;])([a-z0-9_-]+)\//g)) tokens.add(m[1] as string);
  const lead = /^[a-z0-9_-]+/.exec(ua);
  if (lead !== null) tokens.add(lead[0]);
  return [...tokens];
}

class ParsedRobots implements RobotsRules {
  readonly sitemaps: string[];
  private readonly groups: Map<string, Group>;
  /** Group chosen per user agent string; crawlers ask with one or two agents, so this stays tiny. */
  private readonly chosen = new Map<string, Group | null>();

  constructor(groups: Map<string, Group>, sitemaps: string[]) {
    this.groups = groups;
    this.sitemaps = sitemaps;
  }

  isAllowed(url: string, userAgent: string): boolean {
    const path = pathOf(url);
    if (path === null || path === '/robots.txt') return true;
    const group = this.groupFor(userAgent);
    if (group === null || group.rules.length === 0) return true;
    const target = encodeForComparison(path);
    let best: RobotsRule | null = null;
    for (const rule of group.rules) {
      if (best !== null && (rule.length < best.length || (rule.length === best.length && !rule.allow))) continue;
      if (matchesRobotsRule(rule, target)) best = rule;
    }
    return best === null || best.allow;
  }

  crawlDelaySec(userAgent: string): number | undefined {
    return this.groupFor(userAgent)?.crawlDelaySec;
  }

  private groupFor(userAgent: string): Group | null {
    const cached = this.chosen.get(userAgent);
    if (cached !== undefined) return cached;
    let best: string | null = null;
    for (const token of userAgentTokens(String(userAgent))) {
      for (const agent of this.groups.keys()) {
        if (agent === '*' || (best !== null && agent.length <= best.length)) continue;
        if (token === agent || token.startsWith(`${agent}-`)) best = agent;
      }
    }
    const group = this.groups.get(best ?? '*') ?? null;
    if (this.chosen.size < 64) this.chosen.set(userAgent, group);
    return group;
  }
}

/** Path and query of an absolute URL or of a path starting with `/`; fragment removed. */
function pathOf(url: string): string | null {
  if (url.startsWith('/')) {
    const hash = url.indexOf('#');
    return hash >= 0 ? url.slice(0, hash) : url;
  }
  try {
    const u = new URL(url);
    return u.pathname + u.search;
  } catch {
    return null;
  }
}

/** Rules of an absent or empty robots.txt: everything allowed, no crawl delay, no sitemaps. */
export const ALLOW_ALL_ROBOTS: RobotsRules = Object.freeze({
  isAllowed: () => true,
  crawlDelaySec: () => undefined,
  sitemaps: Object.freeze<string[]>([]) as string[],
});
