import { describe, expect, it } from '@jest/globals';
import { ALLOW_ALL_ROBOTS, MAX_ROBOTS_TXT_CHARS, parseRobotsTxt } from './robots-txt.js';

const UA = 'TrawlBot';

// The shape of a typical small site's robots.txt (blank lines, a relative Disallow, an uppercase key).
const SMALL_SITE = `User-agent: *

Disallow: /404/
Disallow: 404.html

SITEMAP: https://www.example.org/sitemap.xml
`;

describe('parseRobotsTxt', () => {
  it('reads a typical small site robots.txt', () => {
    const robots = parseRobotsTxt(SMALL_SITE);
    expect(robots.sitemaps).toEqual(['https://www.example.org/sitemap.xml']);
    expect(robots.isAllowed('https://www.example.org/404/', UA)).toBe(false);
    expect(robots.isAllowed('https://www.example.org/404/x.html', UA)).toBe(false);
    expect(robots.isAllowed('https://www.example.org/404.html', UA)).toBe(false);
    expect(robots.isAllowed('https://www.example.org/404', UA)).toBe(true);
    expect(robots.isAllowed('https://www.example.org/documentation/', UA)).toBe(true);
    expect(robots.crawlDelaySec(UA)).toBeUndefined();
  });

  it('allows everything when empty, blank or absent', () => {
    for (const text of ['', '\n\n', '# only a comment\n']) {
      const robots = parseRobotsTxt(text);
      expect(robots.isAllowed('https://example.com/any', UA)).toBe(true);
      expect(robots.sitemaps).toEqual([]);
    }
    expect(ALLOW_ALL_ROBOTS.isAllowed('https://example.com/x', UA)).toBe(true);
    expect(ALLOW_ALL_ROBOTS.crawlDelaySec(UA)).toBeUndefined();
    expect(ALLOW_ALL_ROBOTS.sitemaps).toEqual([]);
    expect(Object.isFrozen(ALLOW_ALL_ROBOTS)).toBe(true);
  });

  it('applies the longest match, Allow winning ties', () => {
    const robots = parseRobotsTxt(`User-agent: *
Disallow: /folder/
Allow: /folder/page
Allow: /page
Disallow: /*.htm
Allow: /$
Disallow: /
`);
    expect(robots.isAllowed('https://example.com/folder/page', UA)).toBe(true);
    expect(robots.isAllowed('https://example.com/folder/other', UA)).toBe(false);
    expect(robots.isAllowed('https://example.com/', UA)).toBe(true);
    expect(robots.isAllowed('https://example.com/page', UA)).toBe(true);
    // `/*.htm` (6 characters) is longer than `/page` (5): the disallow wins.
    expect(robots.isAllowed('https://example.com/page.htm', UA)).toBe(false);
    expect(robots.isAllowed('https://example.com/other', UA)).toBe(false);
    const tie = parseRobotsTxt('User-agent: *\nDisallow: /p\nAllow: /p\n');
    expect(tie.isAllowed('https://example.com/page', UA)).toBe(true);
  });

  it('matches the query as part of the path', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /*?sessionid=\nDisallow: /search?\n');
    expect(robots.isAllowed('https://example.com/a?sessionid=1', UA)).toBe(false);
    expect(robots.isAllowed('https://example.com/search?q=x', UA)).toBe(false);
    expect(robots.isAllowed('https://example.com/search', UA)).toBe(true);
    expect(robots.isAllowed('/search?q=1#frag', UA)).toBe(false);
  });

  it('compares with normalised percent-encoding on both sides', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /café\nDisallow: /%7ejoe/\nDisallow: /a%2fb\n');
    expect(robots.isAllowed('https://example.com/caf%C3%A9/x', UA)).toBe(false);
    expect(robots.isAllowed('https://example.com/caf%c3%a9', UA)).toBe(false);
    expect(robots.isAllowed('https://example.com/~joe/index.html', UA)).toBe(false);
    expect(robots.isAllowed('https://example.com/a%2Fb', UA)).toBe(false);
    // An encoded slash is not a slash.
    expect(robots.isAllowed('https://example.com/a/b', UA)).toBe(true);
  });

  describe('groups', () => {
    const text = `# comment
User-agent: *
Disallow: /private/
Crawl-delay: 1

User-agent: TrawlBot
User-agent: OtherBot
Disallow: /no-trawl/
Crawl-delay: 2.5

User-agent: trawlbot-news
Disallow: /no-news/

User-agent: unrelated
Disallow: /
`;
    const robots = parseRobotsTxt(text);

    it('uses the group naming the agent, case-insensitively, instead of *', () => {
      expect(robots.isAllowed('https://example.com/private/x', 'trawlbot')).toBe(true);
      expect(robots.isAllowed('https://example.com/no-trawl/x', 'TRAWLBOT')).toBe(false);
      expect(robots.isAllowed('https://example.com/no-trawl/x', 'OtherBot')).toBe(false);
      expect(robots.crawlDelaySec('TrawlBot')).toBe(2.5);
    });

    it('prefers the most specific group', () => {
      expect(robots.isAllowed('https://example.com/no-news/x', 'TrawlBot-News')).toBe(false);
      expect(robots.isAllowed('https://example.com/no-trawl/x', 'TrawlBot-News')).toBe(true);
      expect(robots.isAllowed('https://example.com/no-trawl/x', 'TrawlBot-Images')).toBe(false);
      expect(robots.crawlDelaySec('trawlbot-news')).toBeUndefined();
    });

    it('falls back to * for other agents', () => {
      expect(robots.isAllowed('https://example.com/private/x', 'SomeBot')).toBe(false);
      expect(robots.isAllowed('https://example.com/no-trawl/x', 'SomeBot')).toBe(true);
      expect(robots.crawlDelaySec('SomeBot')).toBe(1);
      expect(robots.isAllowed('https://example.com/private/x', 'Trawl')).toBe(false);
    });

    it('finds the product token in a full User-Agent header', () => {
      const header = 'Mozilla/5.0 (compatible; TrawlBot/1.0; +https://trawl.example/bot)';
      expect(robots.isAllowed('https://example.com/no-trawl/x', header)).toBe(false);
      expect(robots.isAllowed('https://example.com/no-trawl/x', 'TrawlBot/1.0')).toBe(false);
      // `example/` inside the bot URL is not a product token.
      expect(robots.isAllowed('https://example.com/no-trawl/x', 'Mozilla/5.0 (+https://unrelated.example/)')).toBe(true);
    });

    it('allows everything when no group applies and there is no *', () => {
      const only = parseRobotsTxt('User-agent: EvilBot\nDisallow: /\n');
      expect(only.isAllowed('https://example.com/x', UA)).toBe(true);
      expect(only.isAllowed('https://example.com/x', 'EvilBot/2.0')).toBe(false);
    });
  });

  it('merges groups that name the same agent', () => {
    const robots = parseRobotsTxt('User-agent: a\nDisallow: /x\n\nUser-agent: b\nDisallow: /y\n\nUser-agent: A\nDisallow: /z\nCrawl-delay: 3\n');
    expect(robots.isAllowed('/x', 'a')).toBe(false);
    expect(robots.isAllowed('/z', 'a')).toBe(false);
    expect(robots.isAllowed('/y', 'a')).toBe(true);
    expect(robots.crawlDelaySec('a')).toBe(3);
  });

  it('starts a new group at a user-agent line after rules, not at sitemap or unknown lines', () => {
    const robots = parseRobotsTxt('User-agent: a\nSitemap: https://example.com/s.xml\nHost: example.com\nUser-agent: b\nDisallow: /shared\nUser-agent: c\nDisallow: /c-only\n');
    expect(robots.isAllowed('/shared', 'a')).toBe(false);
    expect(robots.isAllowed('/shared', 'b')).toBe(false);
    expect(robots.isAllowed('/shared', 'c')).toBe(true);
    expect(robots.isAllowed('/c-only', 'b')).toBe(true);
  });

  it('skips malformed lines, rules before any group and bad crawl delays without throwing', () => {
    const robots = parseRobotsTxt(`Disallow: /before-any-group
garbage line without colon
: no key
User-agent:
User-agent: *
Disalow: /typo
Crawl-delay: soon
Crawl-delay: -1
Crawl-delay: 4
Allow:
Disallow:
Disallow: /x # trailing comment
\u0000\uffff:::
`);
    expect(robots.isAllowed('/before-any-group', UA)).toBe(true);
    expect(robots.isAllowed('/typo', UA)).toBe(false);
    expect(robots.isAllowed('/x', UA)).toBe(false);
    expect(robots.isAllowed('/x%20', UA)).toBe(false);
    expect(robots.isAllowed('/y', UA)).toBe(true);
    expect(robots.crawlDelaySec(UA)).toBe(4);
  });

  it('treats an empty Disallow as allowing everything', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow:\n');
    expect(robots.isAllowed('https://example.com/anything', UA)).toBe(true);
  });

  it('always allows /robots.txt and unparsable URLs', () => {
    const robots = parseRobotsTxt('User-agent: *\nDisallow: /\n');
    expect(robots.isAllowed('https://example.com/robots.txt', UA)).toBe(true);
    expect(robots.isAllowed('not a url', UA)).toBe(true);
    expect(robots.isAllowed('https://example.com/', UA)).toBe(false);
  });

  it('handles CRLF, CR, a BOM and any key case', () => {
    const robots = parseRobotsTxt('\uFEFFUSER-AGENT: *\r\nDISALLOW: /a\rdisallow: /b\r\n');
    expect(robots.isAllowed('/a', UA)).toBe(false);
    expect(robots.isAllowed('/b', UA)).toBe(false);
  });

  it('collects sitemaps globally, absolute http(s) only, deduplicated, or resolved against baseUrl', () => {
    const text = 'Sitemap: https://example.com/a.xml\nUser-agent: *\nSitemap: https://example.com/a.xml\nsitemap: /rel.xml\nSitemap: ftp://example.com/x.xml\nSitemap: http://example.com/b.xml.gz\n';
    expect(parseRobotsTxt(text).sitemaps).toEqual(['https://example.com/a.xml', 'http://example.com/b.xml.gz']);
    expect(parseRobotsTxt(text, { baseUrl: 'https://example.com/robots.txt' }).sitemaps)
      .toEqual(['https://example.com/a.xml', 'https://example.com/rel.xml', 'http://example.com/b.xml.gz']);
  });

  it('reads at most MAX_ROBOTS_TXT_CHARS', () => {
    const filler = `# ${'x'.repeat(MAX_ROBOTS_TXT_CHARS)}\n`;
    const robots = parseRobotsTxt(`User-agent: *\nDisallow: /early\n${filler}Disallow: /late\n`);
    expect(robots.isAllowed('/early', UA)).toBe(false);
    expect(robots.isAllowed('/late', UA)).toBe(true);
  });
});
