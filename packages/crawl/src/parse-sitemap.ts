import { MAX_URL_LENGTH, parseHttpUrl } from './parse-http-url.js';
import { decodeXmlEntities, scanXml, xmlAttribute, type XmlHandler } from './xml-scanner.js';

/** One page listed by a sitemap or feed. */
export interface SitemapUrl {
  /** Absolute http(s) URL of the page. */
  loc: string;
  /** `<lastmod>` as written (W3C datetime), a feed entry's `<updated>`, or an RSS `<pubDate>` as ISO 8601. */
  lastmod?: string;
}

/** What {@link parseSitemap} found. */
export interface ParsedSitemap {
  /** Pages, in document order, without duplicates. */
  urls: SitemapUrl[];
  /** Child sitemaps of a sitemap index, in document order, without duplicates. */
  sitemaps: string[];
}

/** Elements whose text is read; anything else's text is skipped without being copied. */
const TEXT_FIELDS = new Set(['loc', 'lastmod', 'link', 'guid', 'pubdate', 'updated', 'published', 'date']);
const ENTRIES = new Set(['url', 'item', 'entry']);

/**
 * Parses a sitemap: XML `urlset` and `sitemapindex` (any namespace prefix, any case, CDATA, entities,
 * whitespace), plain-text sitemaps (one URL per line), RSS 0.9x/1.0/2.0 items and Atom entries. Only a
 * `<loc>` directly inside `<url>` or `<sitemap>` counts (never the `<image:loc>` of an image extension).
 * Relative, non-http(s) and over-long locations are dropped. Never throws: garbage gives empty lists.
 */
export function parseSitemap(body: string): ParsedSitemap {
  const text = typeof body === 'string' ? body.replace(/^\uFEFF/, '') : '';
  const out: ParsedSitemap = { urls: [], sitemaps: [] };
  if (/^\s*</.test(text)) scanXml(text, new SitemapHandler(out));
  else parsePlainText(text, out);
  return out;
}

function parsePlainText(text: string, out: ParsedSitemap): void {
  const seen = new Set<string>();
  for (const line of text.split(/\r\n|\r|\n/)) {
    const loc = httpUrl(line);
    if (loc !== null && !/\s/.test(line.trim()) && !seen.has(loc)) {
      seen.add(loc);
      out.urls.push({ loc });
    }
  }
}

/** Absolute http(s) URL from a location as written, or null. */
function httpUrl(value: string): string | null {
  const parsed = parseHttpUrl(value.trim());
  return parsed.ok ? parsed.url.href : null;
}

interface Entry {
  loc?: string;
  guid?: string;
  lastmod?: string;
}

class SitemapHandler implements XmlHandler {
  private readonly out: ParsedSitemap;
  private readonly seenUrls = new Set<string>();
  private readonly seenSitemaps = new Set<string>();
  private readonly stack: string[] = [];
  private entry: Entry | null = null;
  /** Stack depth of the element that opened `entry`. */
  private entryLevel = 0;
  /** The element whose text is being collected, its parent, and the text so far (null past the cap). */
  private field: { name: string; parent: string; attributes: string; text: string | null } | null = null;

  constructor(out: ParsedSitemap) {
    this.out = out;
  }

  open(name: string, attributes: string, selfClosing: boolean): void {
    // Entries never nest: a second <url> while one is open means the first one was left unclosed.
    if (this.entry !== null && ENTRIES.has(name) && this.stack[this.entryLevel - 1] === name) this.close(name);
    const parent = this.stack.at(-1) ?? '';
    this.stack.push(name);
    if (ENTRIES.has(name) && this.entry === null) {
      this.entry = {};
      this.entryLevel = this.stack.length;
      // RSS 1.0 (RDF) items carry their URL in rdf:about, next to (or instead of) <link>.
      if (name === 'item') this.entry.guid = xmlAttribute(attributes, 'about');
    }
    if (name === 'link' && parent === 'entry' && this.entry !== null) {
      const rel = xmlAttribute(attributes, 'rel');
      const href = xmlAttribute(attributes, 'href');
      if (href !== undefined && (rel === undefined || rel === 'alternate')) this.entry.loc ??= href;
    }
    if (!selfClosing && this.field === null && TEXT_FIELDS.has(name)) this.field = { name, parent, attributes, text: '' };
  }

  text(text: string, cdata: boolean): void {
    const field = this.field;
    if (field === null || field.text === null) return;
    field.text += cdata ? text : decodeXmlEntities(text);
    if (field.text.length > MAX_URL_LENGTH * 2) field.text = null;
  }

  close(name: string): void {
    const at = this.stack.lastIndexOf(name);
    if (at < 0) return;
    // Unclosed children of the closed element end with it (forgiving, like an HTML parser).
    while (this.stack.length > at) {
      const popped = this.stack.pop() as string;
      this.finish(popped, this.stack.at(-1) ?? '', this.stack.length + 1);
    }
  }

  private finish(name: string, parent: string, level: number): void {
    const field = this.field;
    if (field !== null && field.name === name && field.parent === parent) {
      this.field = null;
      if (field.text !== null) this.finishField(field.name, field.parent, field.attributes, field.text.trim());
    }
    if (this.entry !== null && level === this.entryLevel) {
      const loc = httpUrl(this.entry.loc ?? '') ?? httpUrl(this.entry.guid ?? '');
      if (loc !== null && !this.seenUrls.has(loc)) {
        this.seenUrls.add(loc);
        this.out.urls.push(this.entry.lastmod === undefined ? { loc } : { loc, lastmod: this.entry.lastmod });
      }
      this.entry = null;
    }
  }

  private finishField(name: string, parent: string, attributes: string, value: string): void {
    if (value === '') return;
    if (parent === 'sitemap' && name === 'loc') {
      const loc = httpUrl(value);
      if (loc !== null && !this.seenSitemaps.has(loc)) {
        this.seenSitemaps.add(loc);
        this.out.sitemaps.push(loc);
      }
      return;
    }
    const entry = this.entry;
    if (entry === null || !ENTRIES.has(parent)) return;
    if (parent === 'url') {
      if (name === 'loc') entry.loc ??= value;
      else if (name === 'lastmod') entry.lastmod ??= value;
    } else if (name === 'link' && parent === 'item') {
      entry.loc ??= value;
    } else if (name === 'guid' && parent === 'item') {
      if (xmlAttribute(attributes, 'ispermalink') !== 'false') entry.guid ??= value;
    } else if (name === 'updated' || name === 'pubdate' || name === 'date' || name === 'published') {
      // <updated> beats <published> in Atom, whichever comes first in the document.
      if (name === 'updated' || entry.lastmod === undefined) entry.lastmod = isoDate(value) ?? entry.lastmod;
    }
  }
}

/** ISO 8601 form of a feed date (RFC 822 in RSS, RFC 3339 in Atom); undefined when unparsable. */
function isoDate(value: string): string | undefined {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
