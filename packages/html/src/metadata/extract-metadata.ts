import type { AnyNode, Element } from 'domhandler';
import type { CollectElements } from '../dom/build-dom.js';
import { absoluteUrl, forEachElement, OPAQUE_TAGS, resolveBase, textOf } from './dom-walk.js';
import { metaKeys } from './meta-key.js';

/**
 * Page metadata in the shape of the API's `metadata` object. Besides the named fields it carries every
 * other `<meta>` tag (see {@link metaKeys} for the key mapping): a string, or a string[] when the same key
 * occurs with several different values.
 */
export interface PageMetadata {
  /** `<title>`, else `og:title`, else `twitter:title`. */
  title?: string;
  /** `<meta name=description>`, else `og:description`, else `twitter:description`. */
  description?: string;
  /** `<meta name=keywords>` as written. */
  keywords?: string;
  /** `<html lang>`; null when absent. */
  language: string | null;
  /** Absolute favicon URL: link rel icon / shortcut icon, else apple-touch-icon, else `/favicon.ico`. */
  favicon?: string;
  /** `og:locale:alternate` values (always present, possibly empty). */
  ogLocaleAlternate: string[];
  /** URL originally requested. */
  sourceURL: string;
  /** Final URL after redirects. */
  url: string;
  /** HTTP status of the page, when the caller knows it. */
  statusCode?: number;
  /** MIME type of the page, when the caller knows it. */
  contentType?: string;
  /** Error message of the page, when the caller has one. */
  error?: string | null;
  [key: string]: string | string[] | number | null | undefined;
}

/** Options of {@link extractMetadata}. */
export interface ExtractMetadataOptions {
  /** Final URL of the page: base of relative URLs (with `<base href>`) and the `url` field. */
  url: string;
  /** URL originally requested. Default: `url`. */
  sourceURL?: string;
  /** HTTP status code, copied to `statusCode` when given. */
  statusCode?: number;
  /** MIME type, copied to `contentType` when given. */
  contentType?: string;
  /** Page error, copied to `error` when given. */
  error?: string | null;
}

interface Collected {
  title?: string;
  lang?: string;
  baseHref?: string;
  icons: { rel: string; href: string }[];
  metas: [string, string][];
}

/** The only elements metadata is read from. */
const METADATA_TAGS: ReadonlySet<string> = new Set(['html', 'base', 'title', 'meta', 'link']);

/**
 * What to collect while parsing (see parseHtml's `collect`) to call {@link metadataOfElements} without
 * walking the page again: the elements {@link extractMetadata} would read, into `into`.
 */
export function metadataElements(into: Element[]): CollectElements {
  return { names: METADATA_TAGS, skipInside: OPAQUE_TAGS, into };
}

function collect(elements: readonly Element[]): Collected {
  const c: Collected = { icons: [], metas: [] };
  for (const el of elements) {
    const a = el.attribs;
    switch (el.name) {
      case 'html':
        if (c.lang === undefined && a.lang !== undefined && a.lang.trim() !== '') c.lang = a.lang.trim();
        break;
      case 'base':
        if (c.baseHref === undefined && a.href !== undefined && a.href.trim() !== '') c.baseHref = a.href.trim();
        break;
      case 'title':
        // The first <title> of the document; <title> inside <svg> is never reached (svg is opaque).
        if (c.title === undefined) c.title = textOf(el);
        break;
      case 'meta': {
        const name = a.name ?? a.property ?? a.itemprop;
        const content = a.content?.trim();
        if (name !== undefined && content !== undefined && content !== '') c.metas.push([name, content]);
        break;
      }
      case 'link': {
        const rel = a.rel?.toLowerCase();
        if (rel !== undefined && a.href !== undefined && /(?:^|\s)(?:icon|apple-touch-icon(?:-precomposed)?)(?:\s|$)/.test(rel)) {
          c.icons.push({ rel, href: a.href });
        }
        break;
      }
      default:
        break;
    }
  }
  return c;
}

function pickFavicon(icons: Collected['icons'], base: URL | null): string | undefined {
  const ranked = [
    ...icons.filter((i) => /(?:^|\s)icon(?:\s|$)/.test(i.rel)),
    ...icons.filter((i) => i.rel.includes('apple-touch-icon')),
  ];
  for (const icon of ranked) {
    const u = absoluteUrl(icon.href, base);
    if (u && (u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'data:')) return u.href;
  }
  if (base && (base.protocol === 'http:' || base.protocol === 'https:')) return new URL('/favicon.ico', base).href;
  return undefined;
}

function first(v: string | string[] | number | null | undefined): string | undefined {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v[0];
  return undefined;
}

/**
 * Extracts the page metadata of the API (`title`, `description`, `keywords`, `language`, `favicon`,
 * `ogLocaleAlternate`, every other `<meta name|property|itemprop>` tag, and the caller-provided
 * `sourceURL`, `url`, `statusCode`, `contentType`, `error`). Pure; does not modify `doc`.
 */
export function extractMetadata(doc: AnyNode, opts: ExtractMetadataOptions): PageMetadata {
  const elements: Element[] = [];
  forEachElement(doc, (el) => {
    if (METADATA_TAGS.has(el.name)) elements.push(el);
  });
  return metadataOfElements(elements, opts);
}

/**
 * {@link extractMetadata} from the html, base, title, meta and link elements of a page (outside script,
 * style, template, svg and math), in document order: see {@link metadataElements}.
 */
export function metadataOfElements(elements: readonly Element[], opts: ExtractMetadataOptions): PageMetadata {
  const c = collect(elements);
  const others = new Map<string, string[]>();
  let description: string | undefined;
  let keywords: string | undefined;
  for (const [rawName, content] of c.metas) {
    const lower = rawName.trim().toLowerCase();
    if (lower === 'description') description ??= content;
    else if (lower === 'keywords') keywords ??= content;
    for (const key of metaKeys(rawName)) {
      const values = others.get(key);
      if (values === undefined) others.set(key, [content]);
      else if (!values.includes(content)) values.push(content);
    }
  }
  const meta: PageMetadata = {
    language: c.lang ?? null,
    ogLocaleAlternate: others.get('ogLocaleAlternate') ?? [],
    sourceURL: opts.sourceURL ?? opts.url,
    url: opts.url,
  };
  others.delete('ogLocaleAlternate');
  for (const [key, values] of others) {
    // The only setter an object inherits is `__proto__` (metaKeys never returns it either): a plain
    // assignment cannot reach the prototype, and costs a sixth of a defineProperty.
    if (key !== '__proto__') meta[key] = values.length === 1 ? values[0] : values;
  }
  const title = c.title || first(meta.ogTitle) || first(meta['twitter:title']);
  if (title) meta.title = title;
  const desc = description ?? first(meta.ogDescription) ?? first(meta['twitter:description']);
  if (desc !== undefined) meta.description = desc;
  if (keywords !== undefined) meta.keywords = keywords;
  const favicon = pickFavicon(c.icons, resolveBase(c.baseHref, opts.url));
  if (favicon !== undefined) meta.favicon = favicon;
  if (opts.statusCode !== undefined) meta.statusCode = opts.statusCode;
  if (opts.contentType !== undefined) meta.contentType = opts.contentType;
  if (opts.error !== undefined) meta.error = opts.error;
  return meta;
}
