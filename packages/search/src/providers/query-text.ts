import type { SearchCategory, SearchQuery } from '../provider.js';

/** A time window read from a `tbs` value. */
export type TimeWindow =
  | { kind: 'past'; unit: 'h' | 'd' | 'w' | 'm' | 'y' }
  | { kind: 'range'; from: string; to: string };

/**
 * Reads `qdr:h|d|w|m|y` and `cdr:1,cd_min:MM/DD/YYYY,cd_max:MM/DD/YYYY` (dates as ISO `YYYY-MM-DD`); `sbd:1`
 * (sort by date) and anything unknown give undefined. A range missing one end is open on that side
 * (from 1970-01-01, to 2100-12-31).
 */
export function timeWindowOf(tbs: string | undefined): TimeWindow | undefined {
  if (!tbs) return undefined;
  const parts = new Map(tbs.split(',').map((p) => {
    const i = p.indexOf(':');
    return i < 0 ? [p.trim(), ''] as const : [p.slice(0, i).trim(), p.slice(i + 1).trim()] as const;
  }));
  const qdr = parts.get('qdr');
  if (qdr && /^[hdwmy]$/.test(qdr)) return { kind: 'past', unit: qdr as 'h' | 'd' | 'w' | 'm' | 'y' };
  if (parts.get('cdr') === '1') {
    const from = isoDate(parts.get('cd_min'));
    const to = isoDate(parts.get('cd_max'));
    if (!from && !to) return undefined;
    return { kind: 'range', from: from ?? '1970-01-01', to: to ?? '2100-12-31' };
  }
  return undefined;
}

/** `MM/DD/YYYY` (or `M/D/YYYY`) -> `YYYY-MM-DD`. */
function isoDate(value: string | undefined): string | undefined {
  const m = value ? /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value) : null;
  if (!m) return undefined;
  return `${m[3]}-${m[1]!.padStart(2, '0')}-${m[2]!.padStart(2, '0')}`;
}

/** Sites a `research` category searches. */
const RESEARCH_SITES = ['arxiv.org', 'scholar.google.com', 'pubmed.ncbi.nlm.nih.gov', 'researchgate.net', 'nature.com', 'semanticscholar.org'];

/**
 * The query text with search operators for categories and domain filters, the forms both keyed and
 * keyless engines read: `site:a.com` (one), `(site:a.com OR site:b.com)` (several), `-site:c.com`,
 * `filetype:pdf`. The runner filters results by domain again; the operators make the engine spend its
 * result pages on the right sites.
 */
export function queryWithOperators(query: Pick<SearchQuery, 'query' | 'categories' | 'includeDomains' | 'excludeDomains'>): string {
  const terms = [query.query.trim()];
  const sites = [...(query.includeDomains ?? [])];
  for (const c of query.categories ?? []) sites.push(...categorySites(c));
  if (sites.length === 1) terms.push(`site:${sites[0]!}`);
  else if (sites.length > 1) terms.push(`(${sites.map((s) => `site:${s}`).join(' OR ')})`);
  if (query.categories?.includes('pdf')) terms.push('filetype:pdf');
  for (const d of query.excludeDomains ?? []) terms.push(`-site:${d}`);
  return terms.filter((t) => t !== '').join(' ');
}

function categorySites(category: SearchCategory): string[] {
  if (category === 'github') return ['github.com'];
  if (category === 'research') return RESEARCH_SITES;
  return [];
}

/** The category a result belongs to, of those asked for (by its host or, for `pdf`, its path). */
export function categoryOf(url: string, categories: readonly SearchCategory[] | undefined): string | undefined {
  if (!categories?.length) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const host = parsed.hostname.toLowerCase();
  const under = (site: string): boolean => host === site || host.endsWith(`.${site}`);
  if (categories.includes('github') && under('github.com')) return 'github';
  if (categories.includes('research') && RESEARCH_SITES.some(under)) return 'research';
  if (categories.includes('pdf') && parsed.pathname.toLowerCase().endsWith('.pdf')) return 'pdf';
  return undefined;
}
