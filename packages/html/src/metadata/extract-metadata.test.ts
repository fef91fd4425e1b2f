import { describe, expect, it } from '@jest/globals';
import { parseDocument } from 'htmlparser2';
import type { Element } from 'domhandler';
import { parseHtml } from '../dom/parse-html.js';
import { extractMetadata, metadataElements, metadataOfElements } from './index.js';

const page = `<!doctype html><html lang="de-DE"><head>
<title>  Page   Title </title>
<meta charset="utf-8">
<meta name="description" content="A description">
<meta name="keywords" content="a, b, c">
<meta name="viewport" content="width=device-width">
<meta property="og:title" content="OG title">
<meta property="og:site_name" content="Site">
<meta property="og:image" content="https://ex.com/1.png">
<meta property="og:image" content="https://ex.com/2.png">
<meta property="og:image:width" content="1200">
<meta property="og:locale" content="de_DE">
<meta property="og:locale:alternate" content="en_US">
<meta property="og:locale:alternate" content="fr_FR">
<meta name="twitter:card" content="summary">
<meta property="article:published_time" content="2024-01-02T03:04:05Z">
<meta name="DC.date.created" content="2024-01-01">
<meta name="dcterms.subject" content="Things">
<meta itemprop="name" content="Itemprop name">
<meta name="empty" content="">
<meta name="__proto__" content="polluted">
<meta name="constructor" content="x">
<meta name="url" content="https://evil.example/">
<link rel="shortcut icon" href="/static/fav.png">
</head><body><svg><title>svg title</title></svg><p>x</p></body></html>`;

describe('extractMetadata', () => {
  const meta = extractMetadata(parseDocument(page), { url: 'https://ex.com/a/page' });

  it('extracts the named fields', () => {
    expect(meta.title).toBe('Page Title');
    expect(meta.description).toBe('A description');
    expect(meta.keywords).toBe('a, b, c');
    expect(meta.language).toBe('de-DE');
    expect(meta.favicon).toBe('https://ex.com/static/fav.png');
    expect(meta.ogLocaleAlternate).toEqual(['en_US', 'fr_FR']);
    expect(meta.url).toBe('https://ex.com/a/page');
    expect(meta.sourceURL).toBe('https://ex.com/a/page');
  });

  it('maps og:* and Dublin Core to camelCase and keeps other keys as given', () => {
    expect(meta.ogTitle).toBe('OG title');
    expect(meta.ogSiteName).toBe('Site');
    expect(meta.ogImage).toEqual(['https://ex.com/1.png', 'https://ex.com/2.png']);
    expect(meta.ogImageWidth).toBe('1200');
    expect(meta.ogLocale).toBe('de_DE');
    expect(meta['og:title']).toBeUndefined();
    expect(meta['twitter:card']).toBe('summary');
    expect(meta.viewport).toBe('width=device-width');
    expect(meta['article:published_time']).toBe('2024-01-02T03:04:05Z');
    expect(meta.publishedTime).toBe('2024-01-02T03:04:05Z');
    expect(meta.dcDateCreated).toBe('2024-01-01');
    expect(meta.dcTermsSubject).toBe('Things');
    expect(meta.name).toBe('Itemprop name');
    expect(meta.empty).toBeUndefined();
  });

  it('ignores prototype keys and cannot overwrite reserved fields', () => {
    expect(Object.getPrototypeOf(meta)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.hasOwnProperty.call(meta, '__proto__')).toBe(false);
    expect(Object.prototype.hasOwnProperty.call(meta, 'constructor')).toBe(false);
    expect(meta.url).toBe('https://ex.com/a/page');
  });

  it('copies caller-provided fields', () => {
    const m = extractMetadata(parseDocument('<p>x</p>'), {
      url: 'https://ex.com/final', sourceURL: 'https://ex.com/start', statusCode: 404, contentType: 'text/html', error: null,
    });
    expect(m).toMatchObject({ url: 'https://ex.com/final', sourceURL: 'https://ex.com/start', statusCode: 404, contentType: 'text/html', error: null });
  });

  it('falls back: og:title for title, og:description, /favicon.ico, null language', () => {
    const m = extractMetadata(
      parseDocument('<head><meta property="og:title" content="T"><meta property="og:description" content="D"></head>'),
      { url: 'https://ex.com/x/y' },
    );
    expect(m.title).toBe('T');
    expect(m.description).toBe('D');
    expect(m.favicon).toBe('https://ex.com/favicon.ico');
    expect(m.language).toBeNull();
    expect(m.ogLocaleAlternate).toEqual([]);
  });

  it('reads the same from the elements collected while parsing (none inside svg, math, template or script)', () => {
    const html = page.replace('<p>x</p>', '<template><meta name="t" content="no"></template><math><title>m</title></math><script/><title>s</title>');
    const found: Element[] = [];
    parseHtml(html, { collect: metadataElements(found) });
    expect(found.map((el) => el.name)).toEqual(['html', 'title', ...Array(21).fill('meta'), 'link']);
    expect(metadataOfElements(found, { url: 'https://ex.com/a/page' })).toEqual(extractMetadata(parseDocument(html), { url: 'https://ex.com/a/page' }));
  });

  it('prefers rel=icon over apple-touch-icon and honours <base href>', () => {
    const html = '<head><base href="https://cdn.ex.com/s/"><link rel="apple-touch-icon" href="touch.png"><link rel="icon" href="i.svg"></head>';
    expect(extractMetadata(parseDocument(html), { url: 'https://ex.com/' }).favicon).toBe('https://cdn.ex.com/s/i.svg');
    const touch = '<head><link rel="apple-touch-icon-precomposed" href="/t.png"></head>';
    expect(extractMetadata(parseDocument(touch), { url: 'https://ex.com/a' }).favicon).toBe('https://ex.com/t.png');
  });
});
