import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BASE64_IMAGE_PLACEHOLDER } from './clean/remove-base64-images.js';
import { runHtmlPipeline } from './pipeline.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__');
const URL = 'https://rail.example.org/news/night-trains';
const page = (): string => readFileSync(join(fixtures, 'article-page.html'), 'utf8');

describe('runHtmlPipeline golden files (<case>.html -> <case>.md, <case>.clean.html)', () => {
  const cases = readdirSync(fixtures).filter((f) => f.endsWith('.html') && !f.endsWith('.clean.html'));
  it('has fixtures', () => expect(cases.length).toBeGreaterThanOrEqual(1));
  for (const file of cases) {
    it(file, () => {
      const r = runHtmlPipeline(readFileSync(join(fixtures, file), 'utf8'), { url: URL, formats: { markdown: true, html: true } });
      const expected = (ext: string): string => readFileSync(join(fixtures, file.replace(/\.html$/, ext)), 'utf8').replace(/\n$/, '');
      expect(r.markdown).toBe(expected('.md'));
      expect(r.html).toBe(expected('.clean.html'));
    });
  }
});

describe('runHtmlPipeline', () => {
  it('returns only the requested formats, metadata always, and times each step', () => {
    const r = runHtmlPipeline(page(), { url: URL, formats: { links: true } });
    expect(Object.keys(r).sort()).toEqual(['links', 'metadata', 'timings']);
    expect(r.metadata).toBeDefined();
    expect(Object.keys(r.timings)).toEqual(['parse', 'metadata', 'links']);
    const all = runHtmlPipeline(page(), { url: URL, formats: { markdown: true, html: true, rawHtml: true, links: true, images: true } });
    expect(Object.keys(all).sort()).toEqual(['html', 'images', 'links', 'markdown', 'metadata', 'rawHtml', 'timings']);
    expect(all.rawHtml).toBe(page());
    for (const step of ['parse', 'metadata', 'links', 'images', 'clean', 'mainContent', 'serialize', 'markdown']) {
      expect(typeof all.timings[step]).toBe('number');
    }
  });

  it('takes links and images from the whole page, not only the main content', () => {
    const r = runHtmlPipeline(page(), { url: URL, formats: { links: true, images: true, markdown: true } });
    expect(r.links).toContain('https://rail.example.org/europe');
    expect(r.links).toContain('https://rail.example.org/news/2023/sleepers');
    expect(r.images).toContain('https://rail.example.org/logo.png');
    expect(r.markdown).not.toContain('Europe](');
  });

  it('cleans html: no script/style/head, absolute URLs against <base>, largest srcset', () => {
    const { html } = runHtmlPipeline(page(), { url: URL, formats: { html: true }, onlyMainContent: false });
    expect(html).not.toMatch(/<script|<style|<head[\s>]|<meta|<link|<title/);
    expect(html).toContain('href="https://rail.example.org/news/2023/sleepers"');
    expect(html).toContain('src="https://rail.example.org/news/img/train-1600.jpg"');
    expect(html).toContain('srcset="https://rail.example.org/news/img/train-1600.webp"');
    expect(html).toContain('Most read');
  });

  it('onlyMainContent (default) drops navigation, cookie notice, sidebar and footer', () => {
    const { html } = runHtmlPipeline(page(), { url: URL, formats: { html: true } });
    for (const boiler of ['About us', 'cookies', 'Most read', 'Imprint', 'Share']) expect(html).not.toContain(boiler);
    expect(html).toContain('<table>');
  });

  it('removeBase64Images changes markdown only', () => {
    const r = runHtmlPipeline(page(), { url: URL, formats: { html: true, markdown: true } });
    expect(r.html).toContain('src="data:image/png;base64,');
    expect(r.markdown).toContain(BASE64_IMAGE_PLACEHOLDER);
    expect(r.markdown).toContain('route map');
    expect(r.markdown).not.toContain('base64,');
    const kept = runHtmlPipeline(page(), { url: URL, formats: { markdown: true }, removeBase64Images: false });
    expect(kept.markdown).toContain('data:image/png;base64,');
  });

  it('includeTags selects elements (main-content scoring is skipped), excludeTags removes', () => {
    const r = runHtmlPipeline(page(), { url: URL, formats: { html: true }, includeTags: ['aside', 'h1'], excludeTags: ['li:first-child'] });
    expect(r.html).toBe(
      '<h1>Night trains are back</h1><aside class="sidebar"><h3>Most read</h3><ul><li><a href="https://rail.example.org/b">Fares rise</a></li><li><a href="https://rail.example.org/c">New timetable</a></li></ul></aside>',
    );
  });

  it('reports invalid selectors as warnings', () => {
    const r = runHtmlPipeline(page(), { url: URL, formats: { html: true }, excludeTags: ['div['] });
    expect(r.warnings?.[0]).toContain('div[');
    expect(r.html).toContain('Night trains');
  });

  it('does not throw on empty or broken input', () => {
    for (const raw of ['', '<<<>>>', '<html><body><table><tr><td>x', '\u0000\ufffd']) {
      expect(() => runHtmlPipeline(raw, { url: 'not a url', formats: { markdown: true, html: true, links: true, images: true } })).not.toThrow();
    }
  });

  it('survives markup nested 100,000 levels deep in every format', () => {
    const depth = 100000;
    const deep = '<div><span>'.repeat(depth) + '<a href="/x">deep</a> <img src="/i.png">' + '</span></div>'.repeat(depth);
    const raw = `<html><head><title>Deep</title></head><body>${deep}</body></html>`;
    const formats = { markdown: true, html: true, rawHtml: true, links: true, images: true };
    for (const onlyMainContent of [true, false]) {
      const r = runHtmlPipeline(raw, { url: URL, formats, onlyMainContent, excludeTags: ['nav'] });
      expect(r.markdown).toBe('[deep](https://rail.example.org/x) ![](https://rail.example.org/i.png)');
      expect(r.html).toContain('<a href="https://rail.example.org/x">deep</a>');
      expect(r.html?.endsWith('</span></div>')).toBe(true);
      expect(r.links).toEqual(['https://rail.example.org/x']);
      expect(r.images).toEqual(['https://rail.example.org/i.png']);
    }
  });
});
