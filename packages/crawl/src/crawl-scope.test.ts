import { describe, expect, it } from '@jest/globals';
import { CrawlScope, type CrawlScopeOptions } from './crawl-scope.js';
import { InvalidCrawlPatternError } from './invalid-crawl-pattern-error.js';
import { MAX_URL_LENGTH } from './parse-http-url.js';

function scope(overrides: Partial<CrawlScopeOptions> = {}): CrawlScope {
  return new CrawlScope({
    seedUrl: 'https://example.com/',
    includePaths: [],
    excludePaths: [],
    regexOnFullURL: false,
    crawlEntireDomain: false,
    allowSubdomains: false,
    allowExternalLinks: false,
    ignoreQueryParameters: false,
    deduplicateSimilarURLs: false,
    ...overrides,
  });
}

function reason(s: CrawlScope, url: string, depth = 1): string {
  const r = s.check(url, depth);
  return r.ok ? 'ok' : r.reason;
}

describe('CrawlScope.check', () => {
  it('returns the canonical URL and the dedupe key', () => {
    expect(scope().check('HTTPS://Example.com/a/#frag', 1)).toEqual({ ok: true, url: 'https://example.com/a/', key: 'https://example.com/a/' });
    expect(scope({ deduplicateSimilarURLs: true }).check('http://www.example.com/a/index.html?x=1', 1))
      .toEqual({ ok: true, url: 'http://www.example.com/a/index.html?x=1', key: 'example.com/a?x=1' });
  });

  it('rejects unparsable, relative and over-long URLs as invalid', () => {
    const s = scope();
    expect(reason(s, 'not a url')).toBe('invalid');
    expect(reason(s, '/relative')).toBe('invalid');
    expect(reason(s, '')).toBe('invalid');
    expect(reason(s, `https://example.com/${'a'.repeat(MAX_URL_LENGTH)}`)).toBe('invalid');
  });

  it.each(['mailto:a@example.com', 'javascript:alert(1)', 'tel:+1', 'ftp://example.com/', 'data:text/html,x'])(
    'rejects %s as scheme',
    (url) => {
      expect(reason(scope(), url)).toBe('scheme');
    },
  );

  describe('hosts', () => {
    it('keeps the seed host, with or without www, on http or https', () => {
      const s = scope({ seedUrl: 'https://www.example.com/' });
      expect(reason(s, 'https://www.example.com/a')).toBe('ok');
      expect(reason(s, 'http://example.com/a')).toBe('ok');
      expect(reason(s, 'https://EXAMPLE.com./a')).toBe('ok');
    });

    it('tells subdomains from external hosts', () => {
      const s = scope({ seedUrl: 'https://www.example.com/' });
      expect(reason(s, 'https://blog.example.com/')).toBe('subdomain');
      expect(reason(s, 'https://a.b.example.com/')).toBe('subdomain');
      expect(reason(s, 'https://example.org/')).toBe('external');
      expect(reason(s, 'https://notexample.com/')).toBe('external');
      expect(reason(s, 'https://example.com.evil.net/')).toBe('external');
    });

    it('follows subdomains of the seed with allowSubdomains, whatever their path', () => {
      const s = scope({ seedUrl: 'https://example.com/docs/', allowSubdomains: true });
      expect(reason(s, 'https://a.example.com/anything')).toBe('ok');
      expect(reason(s, 'https://www.a.example.com/')).toBe('ok');
      expect(reason(s, 'https://example.org/')).toBe('external');
      // A subdomain seed does not open its parent domain.
      const sub = scope({ seedUrl: 'https://docs.example.com/', allowSubdomains: true });
      expect(reason(sub, 'https://example.com/')).toBe('external');
      expect(reason(sub, 'https://v2.docs.example.com/')).toBe('ok');
    });

    it('follows any host with allowExternalLinks, still applying depth and patterns', () => {
      const s = scope({ seedUrl: 'https://example.com/docs/', allowExternalLinks: true, maxDiscoveryDepth: 1, excludePaths: ['^/private'] });
      expect(reason(s, 'https://other.org/page')).toBe('ok');
      expect(reason(s, 'https://other.org/page', 2)).toBe('depth');
      expect(reason(s, 'https://other.org/private/x')).toBe('exclude');
      expect(reason(s, 'mailto:x@other.org')).toBe('scheme');
      // The seed's own host keeps its path rule.
      expect(reason(s, 'https://example.com/blog/')).toBe('outside-path');
    });

    it('accepts IDN hosts written in Unicode or punycode', () => {
      const s = scope({ seedUrl: 'https://bücher.example/' });
      expect(s.check('https://BÜCHER.example/a', 1)).toEqual({ ok: true, url: 'https://xn--bcher-kva.example/a', key: 'https://xn--bcher-kva.example/a' });
      expect(reason(s, 'https://xn--bcher-kva.example/b')).toBe('ok');
    });
  });

  describe('path scope (crawlEntireDomain false)', () => {
    it.each([
      ['https://example.com/docs/', '/docs/'],
      ['https://example.com/docs/intro', '/docs/intro/'],
      ['https://example.com/docs/page.html', '/docs/'],
      ['https://example.com/docs', '/docs/'],
      ['https://example.com', '/'],
      ['https://example.com/docs/?q=1', '/docs/'],
    ])('seed %s -> prefix %s', (seedUrl, prefix) => {
      expect(scope({ seedUrl }).pathPrefix).toBe(prefix);
    });

    it('keeps paths under the seed directory only (children of the seed, as Firecrawl does)', () => {
      expect(reason(scope({ seedUrl: 'https://example.com/docs/intro' }), 'https://example.com/docs/other')).toBe('outside-path');
      expect(reason(scope({ seedUrl: 'https://example.com/docs/intro' }), 'https://example.com/docs/intro/part-2')).toBe('ok');
      const s = scope({ seedUrl: 'https://example.com/docs' });
      expect(reason(s, 'https://example.com/docs/')).toBe('ok');
      expect(reason(s, 'https://example.com/docs/a/b')).toBe('ok');
      expect(reason(s, 'https://example.com/docs')).toBe('ok'); // the seed itself
      expect(reason(s, 'https://example.com/docsx/')).toBe('outside-path');
      expect(reason(s, 'https://example.com/')).toBe('outside-path');
      expect(reason(s, 'https://example.com/blog/docs/')).toBe('outside-path');
      expect(reason(s, 'https://example.com/docs/../blog/')).toBe('outside-path');
    });

    it('compares paths with normalised percent-encoding', () => {
      const s = scope({ seedUrl: 'https://example.com/caf%c3%a9/' });
      expect(reason(s, 'https://example.com/café/menu')).toBe('ok');
      expect(reason(s, 'https://example.com/caf%C3%A9/menu')).toBe('ok');
    });

    it('opens the whole host with crawlEntireDomain', () => {
      const s = scope({ seedUrl: 'https://example.com/docs/intro', crawlEntireDomain: true });
      expect(reason(s, 'https://example.com/blog/')).toBe('ok');
      expect(reason(s, 'https://www.example.com/')).toBe('ok');
    });
  });

  describe('the seed', () => {
    it('is always in scope, even against its own patterns and file type', () => {
      const s = scope({ seedUrl: 'https://example.com/docs/app.js', crawlEntireDomain: true, includePaths: ['^/blog'], excludePaths: ['docs'], maxDiscoveryDepth: 0 });
      expect(s.check('https://example.com/docs/app.js#x', 0)).toEqual({ ok: true, url: s.seedUrl, key: s.seedKey });
      expect(reason(s, 'https://example.com/blog/a', 0)).toBe('ok');
      expect(reason(s, 'https://example.com/blog/a', 1)).toBe('depth');
    });

    it('is recognised through similar-URL variants', () => {
      const s = scope({ seedUrl: 'https://www.example.com/docs/', includePaths: ['^/nothing'], deduplicateSimilarURLs: true });
      expect(reason(s, 'http://example.com/docs/index.html')).toBe('ok');
      expect(reason(s, 'http://example.com/docs/other')).toBe('include');
    });

    it('must be an absolute http(s) URL', () => {
      expect(() => scope({ seedUrl: 'example.com' })).toThrow(TypeError);
      expect(() => scope({ seedUrl: 'ftp://example.com/' })).toThrow(TypeError);
    });
  });

  describe('include and exclude patterns', () => {
    it('matches patterns written with or without a leading slash, anchored or not', () => {
      for (const pattern of ['blog/.*', '^/blog/', '^blog/', '/blog/', 'blog']) {
        const s = scope({ includePaths: [pattern] });
        expect([pattern, reason(s, 'https://example.com/blog/post-1')]).toEqual([pattern, 'ok']);
        expect([pattern, reason(s, 'https://example.com/news/post-1')]).toEqual([pattern, 'include']);
      }
    });

    it('sees the query, and also the path without it', () => {
      expect(reason(scope({ excludePaths: ['\\?page=\\d+'] }), 'https://example.com/list?page=2')).toBe('exclude');
      expect(reason(scope({ includePaths: ['\\.html$'] }), 'https://example.com/a.html?x=1')).toBe('ok');
      expect(reason(scope({ includePaths: ['^/list$'] }), 'https://example.com/list?page=2')).toBe('ok');
    });

    it('does not see a query dropped by ignoreQueryParameters', () => {
      const s = scope({ excludePaths: ['page='], ignoreQueryParameters: true });
      expect(s.check('https://example.com/list?page=2', 1)).toEqual({ ok: true, url: 'https://example.com/list', key: 'https://example.com/list' });
    });

    it('matches percent-decoded paths too', () => {
      expect(reason(scope({ includePaths: ['^/wiki/Zürich$'] }), 'https://example.com/wiki/Z%C3%BCrich')).toBe('ok');
      expect(reason(scope({ includePaths: ['^/wiki/Z%C3%BCrich$'] }), 'https://example.com/wiki/Zürich')).toBe('ok');
    });

    it('lets exclude win over include', () => {
      const s = scope({ includePaths: ['^/blog'], excludePaths: ['/drafts/'] });
      expect(reason(s, 'https://example.com/blog/drafts/x')).toBe('exclude');
      expect(reason(s, 'https://example.com/blog/x')).toBe('ok');
    });

    it('is case-sensitive, as a RegExp without flags', () => {
      expect(reason(scope({ includePaths: ['^/Blog'] }), 'https://example.com/blog/x')).toBe('include');
    });

    it('matches the full canonical URL with regexOnFullURL', () => {
      const s = scope({ regexOnFullURL: true, includePaths: ['^https://example\\.com/blog/'], allowSubdomains: true });
      expect(reason(s, 'HTTPS://EXAMPLE.com/blog/x#y')).toBe('ok');
      expect(reason(s, 'https://a.example.com/blog/x')).toBe('include');
      expect(reason(scope({ regexOnFullURL: true, includePaths: ['^/blog'] }), 'https://example.com/blog/x')).toBe('include');
    });

    it('ignores empty patterns instead of excluding everything', () => {
      expect(reason(scope({ excludePaths: [''], includePaths: [''] }), 'https://example.com/a')).toBe('ok');
    });

    it('throws InvalidCrawlPatternError naming the field and the pattern', () => {
      let caught: unknown;
      try {
        scope({ includePaths: ['^/ok'], excludePaths: ['/a', '(unclosed'] });
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(InvalidCrawlPatternError);
      const err = caught as InvalidCrawlPatternError;
      expect(err.field).toBe('excludePaths');
      expect(err.pattern).toBe('(unclosed');
      expect(err.message).toContain('excludePaths');
      expect(err.cause).toBeInstanceOf(Error);
      expect(() => scope({ includePaths: ['[z-a]'] })).toThrow(InvalidCrawlPatternError);
    });
  });

  describe('file types', () => {
    it.each(['/logo.PNG', '/a/photo.jpeg', '/v.mp4', '/s.mp3', '/pkg.tar.gz', '/f.woff2', '/setup.exe', '/app.js', '/site.css', '/i.svg'])(
      'skips %s',
      (path) => {
        expect(reason(scope(), `https://example.com${path}`)).toBe('file-type');
      },
    );

    it.each(['/paper.pdf', '/sheet.xlsx', '/doc.docx', '/page.html', '/page.php', '/v1.2/', '/dir.png/page', '/.well-known/x', '/feed.xml', '/a.'])(
      'keeps %s',
      (path) => {
        expect(reason(scope(), `https://example.com${path}`)).toBe('ok');
      },
    );

    it('looks at the path, not the query', () => {
      expect(reason(scope(), 'https://example.com/page?file=x.png')).toBe('ok');
      expect(reason(scope(), 'https://example.com/img.png?w=100')).toBe('file-type');
    });
  });

  describe('depth', () => {
    it('rejects URLs deeper than maxDiscoveryDepth', () => {
      const s = scope({ maxDiscoveryDepth: 2 });
      expect(reason(s, 'https://example.com/a', 0)).toBe('ok');
      expect(reason(s, 'https://example.com/a', 2)).toBe('ok');
      expect(reason(s, 'https://example.com/a', 3)).toBe('depth');
      expect(reason(s, 'https://example.com/a', Number.NaN)).toBe('depth');
    });

    it('has no limit when maxDiscoveryDepth is undefined', () => {
      expect(reason(scope(), 'https://example.com/a', 10_000)).toBe('ok');
    });
  });

  it('reports the first failing check in the documented order', () => {
    const s = scope({ seedUrl: 'https://example.com/docs/', includePaths: ['^/docs/yes'], excludePaths: ['no'], maxDiscoveryDepth: 0 });
    expect(reason(s, 'https://other.org/no.png', 5)).toBe('external');
    expect(reason(s, 'https://example.com/no.png', 5)).toBe('outside-path');
    expect(reason(s, 'https://example.com/docs/no.png', 5)).toBe('file-type');
    expect(reason(s, 'https://example.com/docs/no', 5)).toBe('exclude');
    expect(reason(s, 'https://example.com/docs/maybe', 5)).toBe('include');
    expect(reason(s, 'https://example.com/docs/yes', 5)).toBe('depth');
  });

  it('does not share state with the options object it was given', () => {
    const opts: CrawlScopeOptions = {
      seedUrl: 'https://example.com/', includePaths: [], excludePaths: [], regexOnFullURL: false, crawlEntireDomain: true,
      allowSubdomains: false, allowExternalLinks: false, ignoreQueryParameters: false, deduplicateSimilarURLs: false,
    };
    const s = new CrawlScope(opts);
    opts.allowExternalLinks = true;
    opts.excludePaths.push('.*');
    expect(reason(s, 'https://other.org/')).toBe('external');
    expect(reason(s, 'https://example.com/a')).toBe('ok');
  });
});
