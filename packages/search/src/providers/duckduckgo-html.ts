import type { WebSearchItem } from '../provider.js';
import { decodeEntities, htmlToText } from './html-text.js';

/** What one page of DuckDuckGo's HTML endpoint holds. */
export type DuckDuckGoPage =
  | { kind: 'results'; items: WebSearchItem[]; next?: Record<string, string> }
  /** The page says there are no results. */
  | { kind: 'empty' }
  /** The captcha ("anomaly") page DuckDuckGo answers to traffic it takes for a bot. */
  | { kind: 'blocked' }
  /** None of the markup this parser knows: the page layout changed. */
  | { kind: 'unknown' };

/** Markers of the anomaly/captcha page. */
const BLOCKED_RE = /anomaly-modal|anomaly\.js|challenge-form|bots use DuckDuckGo too/i;

/**
 * Reads a page of `html.duckduckgo.com/html/` without a DOM: result blocks are the elements whose
 * class list holds `result` (ads, `result--ad`, skipped), each with its title link `a.result__a` and
 * snippet `.result__snippet`; links are DuckDuckGo redirects (`//duckduckgo.com/l/?uddg=<encoded>`),
 * decoded to the target. The "Next" form's fields are what the following page is asked with.
 */
export function parseDuckDuckGoPage(html: string): DuckDuckGoPage {
  if (BLOCKED_RE.test(html)) return { kind: 'blocked' };
  const starts = [...html.matchAll(/<div\b[^>]*>/gi)].filter((m) => classesOf(m[0]).has('result'));
  const items: WebSearchItem[] = [];
  let blocks = 0;
  let empty = /class\s*=\s*["'][^"']*\bno-results\b/i.test(html);
  for (let i = 0; i < starts.length; i += 1) {
    const start = starts[i]!;
    const classes = classesOf(start[0]);
    if (classes.has('result--no-result')) {
      empty = true;
      continue;
    }
    blocks += 1;
    if (classes.has('result--ad')) continue;
    const block = html.slice(start.index, starts[i + 1]?.index ?? html.length);
    const item = resultOf(block);
    if (item) items.push(item);
  }
  if (items.length > 0) {
    const next = nextFormOf(html);
    return next ? { kind: 'results', items, next } : { kind: 'results', items };
  }
  if (empty) return { kind: 'empty' };
  // Only ads, or blocks whose links no longer read: the layout changed under us.
  return blocks > 0 && starts.every((s) => classesOf(s[0]).has('result--ad')) ? { kind: 'empty' } : { kind: 'unknown' };
}

/** One organic result block -> an item, or undefined when it has no readable title link. */
function resultOf(block: string): WebSearchItem | undefined {
  const title = elementWithClass(block, 'a', 'result__a');
  if (!title) return undefined;
  const url = targetOf(attrsOf(title.tag).get('href'));
  if (!url) return undefined;
  const snippet = elementWithClass(block, 'a', 'result__snippet') ?? elementWithClass(block, 'div', 'result__snippet') ?? elementWithClass(block, 'td', 'result-snippet');
  return { url, title: htmlToText(title.inner), description: snippet ? htmlToText(snippet.inner) : '' };
}

/** The first `<tag class="... cls ...">inner</tag>` of `html` (no nesting of the same tag inside). */
function elementWithClass(html: string, tag: string, cls: string): { tag: string; inner: string } | undefined {
  const open = new RegExp(`<${tag}\\b[^>]*>`, 'gi');
  for (const m of html.matchAll(open)) {
    if (!classesOf(m[0]).has(cls)) continue;
    const from = m.index + m[0].length;
    const close = html.slice(from).search(new RegExp(`</${tag}\\s*>`, 'i'));
    return { tag: m[0], inner: close < 0 ? html.slice(from) : html.slice(from, from + close) };
  }
  return undefined;
}

/** A result link's target: the `uddg` parameter of a redirect link, else the link itself; http(s) only, ads' `y.js` links none. */
export function targetOf(href: string | undefined): string | undefined {
  if (!href) return undefined;
  let url: URL;
  try {
    url = new URL(href, 'https://duckduckgo.com/');
  } catch {
    return undefined;
  }
  const isDdg = url.hostname === 'duckduckgo.com' || url.hostname.endsWith('.duckduckgo.com');
  if (isDdg) {
    const target = url.pathname === '/l/' || url.pathname === '/l' ? url.searchParams.get('uddg') : null;
    if (!target) return undefined;
    try {
      url = new URL(target);
    } catch {
      return undefined;
    }
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
}

/** The hidden fields of the form whose submit button says "Next". */
function nextFormOf(html: string): Record<string, string> | undefined {
  for (const form of html.matchAll(/<form\b[^>]*>([\s\S]*?)<\/form\s*>/gi)) {
    const inputs = [...form[1]!.matchAll(/<input\b[^>]*>/gi)].map((m) => attrsOf(m[0]));
    if (!inputs.some((a) => a.get('type')?.toLowerCase() === 'submit' && /next/i.test(a.get('value') ?? ''))) continue;
    const fields: Record<string, string> = {};
    for (const a of inputs) {
      const name = a.get('name');
      if (name && a.get('type')?.toLowerCase() !== 'submit') fields[name] = a.get('value') ?? '';
    }
    return fields;
  }
  return undefined;
}

/** Attributes of a start tag (names lower case, values entity-decoded). */
function attrsOf(tag: string): Map<string, string> {
  const attrs = new Map<string, string>();
  const body = tag.replace(/^<[a-zA-Z0-9]+/, '').replace(/\/?>$/, '');
  for (const m of body.matchAll(/([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
    attrs.set(m[1]!.toLowerCase(), decodeEntities(m[2] ?? m[3] ?? m[4] ?? ''));
  }
  return attrs;
}

function classesOf(tag: string): Set<string> {
  return new Set((attrsOf(tag).get('class') ?? '').split(/\s+/).filter(Boolean));
}
