import { describe, expect, it } from '@jest/globals';
import { rankLinks } from './rank-links.js';

interface Link {
  url: string;
  title?: string;
  description?: string;
}

const urls = (links: Link[]): string[] => links.map((l) => l.url);

describe('rankLinks', () => {
  const links: Link[] = [
    { url: 'https://example.com/' , title: 'Home' },
    { url: 'https://example.com/about', title: 'About us', description: 'Our team and our pricing philosophy' },
    { url: 'https://example.com/pricing', title: 'Plans' },
    { url: 'https://example.com/blog/pricing-changes-2024', title: 'Changes to our plans' },
    { url: 'https://example.com/contact', title: 'Pricing questions? Contact sales' },
    { url: 'https://example.com/careers', title: 'Careers' },
  ];

  it('puts matches first, best first, and keeps non-matching links after them in input order', () => {
    const ranked = urls(rankLinks(links, 'pricing'));
    expect(ranked.slice(0, 4)).toEqual([
      'https://example.com/pricing',
      // A title word and a path word weigh the same: input order breaks the tie.
      'https://example.com/blog/pricing-changes-2024',
      'https://example.com/contact',
      'https://example.com/about',
    ]);
    expect(ranked.slice(4)).toEqual(['https://example.com/', 'https://example.com/careers']);
    expect(ranked).toHaveLength(links.length);
  });

  it('weights title and path above description and host', () => {
    const ranked = rankLinks(
      [
        { url: 'https://docs.example.com/x', description: 'docs' },
        { url: 'https://example.com/y', description: 'the docs' },
        { url: 'https://example.com/docs' },
        { url: 'https://example.com/z', title: 'Docs' },
      ],
      'docs',
    );
    expect(urls(ranked).slice(0, 2).sort()).toEqual(['https://example.com/docs', 'https://example.com/z']);
  });

  it('rewards the exact phrase and matching every term', () => {
    const ranked = rankLinks(
      [
        { url: 'https://example.com/z', title: 'Rate card for the API' },
        { url: 'https://example.com/y', title: 'Limits of the API rate' },
        { url: 'https://example.com/x', title: 'Rate limits for the API' },
      ],
      'rate limits',
    );
    expect(urls(ranked)).toEqual(['https://example.com/x', 'https://example.com/y', 'https://example.com/z']);
  });

  it('prefers focused paths and titles, ignoring page extensions', () => {
    const ranked = rankLinks(
      [
        { url: 'https://example.com/tutorials/sparql_union_pt.html' },
        { url: 'https://example.com/tutorials/sparql.html' },
        { url: 'https://example.com/tutorials/sparql_results.html' },
      ],
      'sparql tutorial',
    );
    expect(urls(ranked)[0]).toBe('https://example.com/tutorials/sparql.html');
  });

  it('prefers whole words over matches inside words', () => {
    const ranked = rankLinks([{ url: 'https://example.com/documentation' }, { url: 'https://example.com/doc' }], 'doc');
    expect(urls(ranked)).toEqual(['https://example.com/doc', 'https://example.com/documentation']);
  });

  it('ignores case, accents, punctuation and percent-encoding', () => {
    const ranked = rankLinks([{ url: 'https://example.com/other' }, { url: 'https://example.com/caf%C3%A9-menu' }], 'CAFÉ, Menu!');
    expect(urls(ranked)[0]).toBe('https://example.com/caf%C3%A9-menu');
  });

  it('is stable for equal scores', () => {
    const same = Array.from({ length: 20 }, (_, i) => ({ url: `https://example.com/blog/${i}` }));
    expect(rankLinks(same, 'blog')).toEqual(same);
  });

  it('returns the links unchanged for an empty or punctuation-only query, and never mutates its input', () => {
    const input = [...links];
    expect(rankLinks(input, '')).toEqual(links);
    expect(rankLinks(input, ' -- ')).toEqual(links);
    rankLinks(input, 'careers');
    expect(input).toEqual(links);
    expect(rankLinks([], 'x')).toEqual([]);
  });

  it('drops one-letter terms unless the query has nothing else', () => {
    const ranked = rankLinks([{ url: 'https://example.com/a-thing' }, { url: 'https://example.com/pricing' }], 'a pricing');
    expect(urls(ranked)[0]).toBe('https://example.com/pricing');
    expect(urls(rankLinks([{ url: 'https://example.com/b' }, { url: 'https://example.com/x' }], 'x'))[0]).toBe('https://example.com/x');
  });

  it('keeps extra fields and tolerates URLs that do not parse', () => {
    const ranked = rankLinks([{ url: 'not a url', id: 1 }, { url: 'relative/pricing', id: 2 }], 'pricing');
    expect(ranked).toEqual([{ url: 'relative/pricing', id: 2 }, { url: 'not a url', id: 1 }]);
  });
});
