import { describe, expect, it } from '@jest/globals';
import { parseSitemap } from './parse-sitemap.js';

// The shape of a generated static-site sitemap: XML declaration with standalone, a second namespace,
// `</url><url>` on one line, timezone offsets in lastmod.
const STATIC_SITE = `<?xml version="1.0" encoding="utf-8" standalone="yes"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
  xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url>
    <loc>https://www.example.org/documentation/archive/guide.html</loc>
    <lastmod>2020-06-28T16:59:07+01:00</lastmod>
  </url><url>
    <loc>https://www.example.org/about.html</loc>
    <lastmod>2024-10-18T18:21:19+01:00</lastmod>
  </url><url>
    <loc>https://www.example.org/documentation/</loc>
  </url>
</urlset>
`;

describe('parseSitemap', () => {
  it('reads a urlset with lastmod', () => {
    expect(parseSitemap(STATIC_SITE)).toEqual({
      urls: [
        { loc: 'https://www.example.org/documentation/archive/guide.html', lastmod: '2020-06-28T16:59:07+01:00' },
        { loc: 'https://www.example.org/about.html', lastmod: '2024-10-18T18:21:19+01:00' },
        { loc: 'https://www.example.org/documentation/' },
      ],
      sitemaps: [],
    });
  });

  it('reads a sitemap index', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap><loc>https://example.com/sitemap-posts.xml</loc><lastmod>2024-01-01</lastmod></sitemap>
  <sitemap><loc>https://example.com/sitemap-pages.xml.gz</loc></sitemap>
  <sitemap><loc>https://example.com/sitemap-posts.xml</loc></sitemap>
</sitemapindex>`;
    expect(parseSitemap(xml)).toEqual({
      urls: [],
      sitemaps: ['https://example.com/sitemap-posts.xml', 'https://example.com/sitemap-pages.xml.gz'],
    });
  });

  it('accepts namespace prefixes, any case, CDATA, entities and whitespace', () => {
    const xml = `<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
<sm:url><sm:loc>
   https://example.com/a?x=1&amp;y=2
</sm:loc></sm:url>
<URL><LOC><![CDATA[https://example.com/b?x=1&y=2]]></LOC></URL>
<url><loc>https://example.com/&#99;&#x61;f&#xE9;</loc></url>
<url><loc>https://example.com/&unknown;&#0;&#xD800;</loc></url>
</sm:urlset>`;
    expect(parseSitemap(xml).urls.map((u) => u.loc)).toEqual([
      'https://example.com/a?x=1&y=2',
      'https://example.com/b?x=1&y=2',
      'https://example.com/caf%C3%A9',
      'https://example.com/&unknown;&#0;&#xD800;',
    ]);
  });

  it('ignores image, video and alternate-language locations inside <url>', () => {
    const xml = `<urlset xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url>
    <image:image><image:loc>https://cdn.example.com/photo.jpg</image:loc></image:image>
    <loc>https://example.com/gallery</loc>
    <xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/gallery"/>
    <video:video><video:content_loc>https://cdn.example.com/v.mp4</video:content_loc></video:video>
  </url>
</urlset>`;
    expect(parseSitemap(xml)).toEqual({ urls: [{ loc: 'https://example.com/gallery' }], sitemaps: [] });
  });

  it('drops relative, non-http(s), empty and duplicate locations', () => {
    const xml = `<urlset>
<url><loc>/relative</loc></url>
<url><loc>ftp://example.com/f</loc></url>
<url><loc></loc></url>
<url><loc>https://example.com/ok</loc></url>
<url><loc>https://example.com/ok</loc><lastmod>later duplicate</lastmod></url>
<url><lastmod>2024-01-01</lastmod></url>
</urlset>`;
    expect(parseSitemap(xml).urls).toEqual([{ loc: 'https://example.com/ok' }]);
  });

  it('survives comments, processing instructions, a DOCTYPE with a subset and unclosed tags', () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE urlset [ <!ENTITY x "y"> ]>
<!-- <url><loc>https://example.com/commented</loc></url> -->
<?xml-stylesheet type="text/xsl" href="/style.xsl"?>
<urlset>
<url><loc>https://example.com/a</loc>
<url><loc>https://example.com/b</url>
<url><loc>https://example.com/c</loc></url>
</urlset>`;
    expect(parseSitemap(xml).urls.map((u) => u.loc)).toEqual(['https://example.com/a', 'https://example.com/b', 'https://example.com/c']);
  });

  it('reads plain-text sitemaps, one URL per line', () => {
    const text = '\uFEFFhttps://example.com/a\r\n\n  https://example.com/b  \nnot a url\n/relative\nhttps://example.com/a\nhttps://example.com/with space\nmailto:x@example.com\n';
    expect(parseSitemap(text)).toEqual({ urls: [{ loc: 'https://example.com/a' }, { loc: 'https://example.com/b' }], sitemaps: [] });
  });

  it('reads RSS 2.0 item links with pubDate', () => {
    const rss = `<?xml version="1.0"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel>
  <title>Blog</title><link>https://example.com/</link>
  <atom:link href="https://example.com/feed.xml" rel="self" type="application/rss+xml"/>
  <item><title>One</title><link>https://example.com/posts/one</link><pubDate>Tue, 02 Jan 2024 10:00:00 GMT</pubDate></item>
  <item><title>Two</title><guid isPermaLink="true">https://example.com/posts/two</guid><pubDate>not a date</pubDate></item>
  <item><title>Three</title><guid isPermaLink="false">https://example.com/posts/three</guid></item>
</channel></rss>`;
    expect(parseSitemap(rss)).toEqual({
      urls: [{ loc: 'https://example.com/posts/one', lastmod: '2024-01-02T10:00:00.000Z' }, { loc: 'https://example.com/posts/two' }],
      sitemaps: [],
    });
  });

  it('reads RSS 1.0 (RDF) items', () => {
    const rdf = `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="https://example.com/"><link>https://example.com/</link></channel>
<item rdf:about="https://example.com/a"><title>A</title><dc:date>2024-03-01T00:00:00Z</dc:date></item>
<item rdf:about="https://example.com/b"><link>https://example.com/b-link</link></item>
</rdf:RDF>`;
    expect(parseSitemap(rdf).urls).toEqual([
      { loc: 'https://example.com/a', lastmod: '2024-03-01T00:00:00.000Z' },
      { loc: 'https://example.com/b-link' },
    ]);
  });

  it('reads Atom entries: the alternate link, updated over published', () => {
    const atom = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <link href="https://example.com/" /><link rel="self" href="https://example.com/atom.xml"/>
  <entry>
    <link rel="edit" href="https://example.com/edit/1"/>
    <link rel="alternate" type="text/html" href="https://example.com/posts/1?a=1&amp;b=2"/>
    <updated>2024-02-02T00:00:00Z</updated><published>2024-01-01T00:00:00Z</published>
  </entry>
  <entry><link href="https://example.com/posts/2"></link><published>2024-01-05T00:00:00Z</published></entry>
  <entry><link rel="enclosure" href="https://example.com/a.mp3"/></entry>
</feed>`;
    expect(parseSitemap(atom).urls).toEqual([
      { loc: 'https://example.com/posts/1?a=1&b=2', lastmod: '2024-02-02T00:00:00.000Z' },
      { loc: 'https://example.com/posts/2', lastmod: '2024-01-05T00:00:00.000Z' },
    ]);
  });

  it.each([
    ['empty', ''],
    ['whitespace', '  \n '],
    ['an HTML page', '<!DOCTYPE html><html><head><title>Not found</title></head><body><a href="https://example.com/x">x</a></body></html>'],
    ['JSON', '{"urls": ["https://example.com/a"]}'],
    ['binary noise', '\u0000\u0001\u0002<<<>>>\u00ff</></<a b="'],
    ['an unterminated tag', '<urlset><url><loc>https://example.com/a'],
    ['an unterminated CDATA', '<urlset><url><loc><![CDATA[https://example.com/a'],
  ])('returns empty lists for %s', (_name, body) => {
    expect(parseSitemap(body)).toEqual({ urls: [], sitemaps: [] });
  });

  it('reads a stray less-than as text', () => {
    expect(parseSitemap('<urlset><url><loc>https://example.com/a?x=1<2</loc></url>').urls).toEqual([{ loc: 'https://example.com/a?x=1%3C2' }]);
  });

  it('never throws on non-string input', () => {
    expect(parseSitemap(undefined as unknown as string)).toEqual({ urls: [], sitemaps: [] });
  });

  it('drops over-long locations and keeps going', () => {
    const long = `https://example.com/${'a'.repeat(20_000)}`;
    const xml = `<urlset><url><loc>${long}</loc></url><url><loc>https://example.com/next</loc></url></urlset>`;
    expect(parseSitemap(xml).urls).toEqual([{ loc: 'https://example.com/next' }]);
  });

  it('parses a large sitemap in one pass', () => {
    const entries = Array.from({ length: 50_000 }, (_, i) => `<url><loc>https://example.com/p/${i}</loc><lastmod>2024-01-01</lastmod></url>`);
    const { urls } = parseSitemap(`<urlset>${entries.join('\n')}</urlset>`);
    expect(urls).toHaveLength(50_000);
    expect(urls[49_999]).toEqual({ loc: 'https://example.com/p/49999', lastmod: '2024-01-01' });
  });
});
