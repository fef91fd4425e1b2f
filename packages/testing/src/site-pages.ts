import type { SiteGraph } from './site-graph.js';

const WORDS = (
  'crawler sitemap anchor harbor lantern meadow granite orbit pixel quarry ribbon saddle timber velvet willow ' +
  'zephyr amber basil cobalt delta ember fjord glacier hollow indigo juniper kelp lagoon marble nectar ' +
  'opal pepper quartz river sierra tundra umber valley walnut yarrow'
).split(' ');

/** mulberry32: a tiny seeded generator, so filler text is the same on every run. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashString(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Heading of a page: `Page N` for `/p/N`, `Private N`, `Hidden N`, `Home`, `About`. */
export function pageHeading(path: string): string {
  if (path === '/') return 'Home';
  if (path === '/about') return 'About';
  const [, kind, n] = path.split('/');
  const label = kind === 'p' ? 'Page' : `${(kind ?? '').charAt(0).toUpperCase()}${(kind ?? '').slice(1)}`;
  return `${label} ${n ?? ''}`;
}

function linkText(href: string): string {
  if (/^[a-z]+:/i.test(href)) return 'External reference';
  if (href.startsWith('/missing/')) return 'A page that moved';
  const [path = '', query] = href.split('?');
  const label = path.startsWith('/r/') ? `Page ${path.slice(3)}` : pageHeading(path);
  return query ? `${label} (${query})` : label;
}

/** Paragraphs of seeded words, stopping within one word of `bytes`. */
function filler(path: string, bytes: number): string {
  const next = seededRandom(hashString(path));
  const paragraphs: string[] = [];
  let words: string[] = [];
  // Each paragraph costs `<p>` + `.</p>` + newline = 8 bytes besides its words and spaces.
  let size = 8;
  while (size < bytes) {
    const word = WORDS[Math.floor(next() * WORDS.length)] as string;
    words.push(word);
    size += word.length + 1;
    if (words.length >= 40 + Math.floor(next() * 30) && size + 8 < bytes) {
      paragraphs.push(`<p>${words.join(' ')}.</p>`);
      words = [];
      size += 8;
    }
  }
  if (words.length > 0) paragraphs.push(`<p>${words.join(' ')}.</p>`);
  return paragraphs.join('\n');
}

/** The HTML of a page: title, meta description, nav, main content with its links, footer. */
export function renderPage(graph: SiteGraph, path: string): string {
  const heading = pageHeading(path);
  const links = graph.contentLinks(path).map((href) => `<li><a href="${escapeHtml(href)}">${escapeHtml(linkText(href))}</a></li>`);
  const nav = graph.navLinks().map((href) => `<a href="${href}">${linkText(href)}</a>`).join(' ');
  const head = [
    '<!doctype html>', '<html lang="en"><head><meta charset="utf-8">',
    `<title>${heading} | Generated site</title>`,
    `<meta name="description" content="${heading}: a generated page for crawl tests.">`,
    '</head><body>', `<nav>${nav}</nav>`, '<main>', `<h1>${heading}</h1>`,
  ].join('\n');
  const tail = [
    links.length > 0 ? `<ul class="links">\n${links.join('\n')}\n</ul>` : '',
    '</main>', '<footer><p>Generated site. All pages are made up.</p></footer>', '</body></html>', '',
  ].join('\n');
  return `${head}\n${filler(path, Math.max(0, graph.opts.pageBytes - head.length - tail.length))}\n${tail}`;
}

/** robots.txt of the site; the caller checks that robots is not false. */
export function renderRobots(graph: SiteGraph, origin: string): string {
  const robots = graph.opts.robots || {};
  const lines = [`User-agent: ${robots.userAgent ?? '*'}`];
  for (const prefix of robots.disallow ?? ['/private/']) lines.push(`Disallow: ${prefix}`);
  if (robots.crawlDelaySec !== undefined) lines.push(`Crawl-delay: ${robots.crawlDelaySec}`);
  if (graph.opts.sitemap !== 'none') lines.push('', `Sitemap: ${origin}/sitemap.xml`);
  return `${lines.join('\n')}\n`;
}

/** A urlset of every sitemap path. */
export function renderUrlset(graph: SiteGraph, origin: string): string {
  const urls = graph.sitemapPaths().map((p) => `  <url><loc>${origin}${p}</loc></url>`);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
}

/** A sitemapindex pointing to the gzipped urlset. */
export function renderSitemapIndex(origin: string): string {
  return '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    + `  <sitemap><loc>${origin}/sitemap-pages.xml.gz</loc></sitemap>\n</sitemapindex>\n`;
}
