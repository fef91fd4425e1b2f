import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanHtml } from '../clean/clean-html.js';
import { domToText } from '../dom/dom-text.js';
import { parseHtml } from '../dom/parse-html.js';
import { extractMainContent } from './extract-main-content.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '__fixtures__');

function mainText(html: string): { text: string; fallback: boolean } {
  const body = cleanHtml(parseHtml(html), { baseUrl: 'https://example.com/page' });
  const r = extractMainContent(body);
  return { text: domToText(r.root), fallback: r.fallback };
}

describe('extractMainContent golden files (<case>.html -> <case>.txt)', () => {
  const cases = readdirSync(fixtures).filter((f) => f.endsWith('.html'));
  it('has fixtures', () => expect(cases.length).toBeGreaterThanOrEqual(5));
  for (const file of cases) {
    it(file, () => {
      const html = readFileSync(join(fixtures, file), 'utf8');
      const expected = readFileSync(join(fixtures, file.replace(/\.html$/, '.txt')), 'utf8').replace(/\n$/, '');
      expect(mainText(html).text).toBe(expected);
    });
  }
});

describe('extractMainContent', () => {
  const blog = (): string => readFileSync(join(fixtures, 'blog-post.html'), 'utf8');

  it('drops navigation, cookie notice, sidebar, comments, share bar and footer', () => {
    const { text } = mainText(blog());
    for (const boiler of ['Recipes', 'We use cookies', 'Popular posts', 'newsletter', 'I tried this recipe', 'Tweet', 'All rights reserved']) {
      expect(text).not.toContain(boiler);
    }
  });

  it('keeps lists, tables and images of the content', () => {
    const body = cleanHtml(parseHtml(blog()), { baseUrl: 'https://example.com/' });
    const root = extractMainContent(body).root;
    const text = domToText(root);
    expect(text).toContain('500 g flour');
    expect(text).toContain('Rise');
    const html = JSON.stringify(root.children.map((c) => domToText(c)));
    expect(html).toContain('The finished loaf.');
    const hasImg = (n: unknown): boolean => {
      const node = n as { name?: string; children?: unknown[] };
      return node.name === 'img' || (node.children ?? []).some(hasImg);
    };
    expect(hasImg(root)).toBe(true);
  });

  it('keeps code blocks', () => {
    const { text } = mainText(readFileSync(join(fixtures, 'code-docs.html'), 'utf8'));
    expect(text).toContain('npm install example-lib');
    expect(text).toContain("const rows = await client.query('select 1');");
    expect(text).not.toContain('MIT license');
  });

  it('falls back to the page instead of returning nothing when unsure', () => {
    const short = mainText(readFileSync(join(fixtures, 'short-page.html'), 'utf8'));
    expect(short.fallback).toBe(true);
    expect(short.text).toContain('Mon–Fri 9–18');
    const links = mainText(readFileSync(join(fixtures, 'link-only.html'), 'utf8'));
    expect(links.text).toContain('Alpha');
    expect(mainText('<html><body></body></html>').text).toBe('');
  });

  it('ignores CMS taxonomy classes such as category-kommentare', () => {
    const html = `<body><nav><a href="/">Home</a> <a href="/x">X</a></nav>
      <article class="post category-kommentare tag-share">
      <p>${'This is a long paragraph of the article, with commas, and sentences. '.repeat(4)}</p>
      <p>${'Another paragraph follows the first one, also with real sentences. '.repeat(3)}</p></article></body>`;
    expect(mainText(html).text).toContain('This is a long paragraph');
  });

  it('removes hidden elements and form controls', () => {
    const html = `<body><article><p style="display:none">Hidden teaser text that should not show.</p>
      <p>${'Visible prose of the article, long enough to be the content of the page. '.repeat(3)}</p>
      <select><option>Choose one</option></select></article></body>`;
    const { text } = mainText(html);
    expect(text).not.toContain('Hidden teaser');
    expect(text).not.toContain('Choose one');
    expect(text).toContain('Visible prose');
  });

  const prose = (word: string, n: number): string => `${word} is a sentence of the story, with a clause and a point. `.repeat(n);
  const nav = '<nav><a href="/">Home</a> <a href="/a">About</a> <a href="/b">Blog</a></nav>';
  const teasers = Array.from({ length: 6 }, (_, i) =>
    `<li><h3><a href="/story-${i}">Headline number ${i} of another story</a></h3><p>${prose(`Summary ${i}`, 3)}</p></li>`).join('');

  it('drops a stream of teasers (linked headline + summary) that outweighs the article', () => {
    const { text } = mainText(`<body>${nav}<div><article><h1>The story</h1><p>${prose('Alpha', 4)}</p>
      <p>${prose('Beta', 4)}</p></article><div><h2>More stories</h2><ul>${teasers}</ul></div></div></body>`);
    expect(text).toContain('Alpha is a sentence');
    expect(text).toContain('Beta is a sentence');
    expect(text).not.toContain('Summary 0');
    expect(text).not.toContain('Headline number 5');
  });

  it('keeps teasers that are the page (a listicle with a short intro)', () => {
    const { text } = mainText(`<body>${nav}<div><p>${prose('Intro', 1)}</p><ul>${teasers}</ul></div></body>`);
    expect(text).toContain('Headline number 0');
    expect(text).toContain('Summary 5');
  });

  it('keeps link-only cells of a table and linked items of a list in the content', () => {
    const rows = Array.from({ length: 4 }, (_, i) => `<tr><td><a href="/film-${i}">Film ${i}</a></td><td>${prose(`Plot ${i}`, 1)}</td></tr>`).join('');
    const refs = `<ol><li>${prose('Note', 1)}</li><li><a href="https://a.example/x">A cited source with a long title</a> (2020)</li></ol>`;
    const { text } = mainText(`<body>${nav}<article><p>${prose('Alpha', 3)}</p><table>${rows}</table>${refs}
      <p>${prose('Beta', 2)}</p></article></body>`);
    expect(text).toContain('Film 0 Plot 0');
    expect(text).toContain('Film 3 Plot 3');
    expect(text).toContain('A cited source with a long title (2020)');
  });

  it('keeps the title around a content of one paragraph', () => {
    const { text } = mainText(`<body>${nav}<div><h1>The title of the fable</h1><p>${prose('Dog', 5)}</p></div>
      <div><a href="/1">One</a> <a href="/2">Two</a> <a href="/3">Three</a></div></body>`);
    expect(text).toContain('The title of the fable');
    expect(text).toContain('Dog is a sentence');
    expect(text).not.toContain('Three');
  });

  it('reads an id made from the section heading as a topic, not a role', () => {
    const section = (id: string, title: string, word: string): string => `<div id="${id}"><h2>${title}</h2><p>${prose(word, 3)}</p></div>`;
    const { text } = mainText(`<body>${nav}<article>${section('getting-started-with-the-tool', 'Getting started with the tool', 'Start')}
      ${section('working-with-other-people', 'Working with other people', 'Work')}
      ${section('sharing-with-multiple-developers-today', 'Sharing with multiple developers today', 'Sharing')}
      ${section('final-words-about-it', 'Final words about it', 'End')}</article></body>`);
    expect(text).toContain('Sharing with multiple developers today');
    expect(text).toContain('Sharing is a sentence');
  });

  it('keeps hinted links that are words of a sentence, drops hinted boxes', () => {
    const { text } = mainText(`<body>${nav}<article><p>${prose('Alpha', 3)} I am a <a class="popup" href="#n1">rather elderly</a> man,
      and the <a class="popup" href="#n2">nature</a> of my work is old.</p><p>${prose('Beta', 3)}</p>
      <div class="share"><a class="popup" href="/share">Share this</a></div></article></body>`);
    expect(text).toContain('I am a rather elderly man, and the nature of my work is old.');
    expect(text).not.toContain('Share this');
  });

  it('scores a long heading as a lead paragraph', () => {
    const lead = 'The poster contest for children takes place for the sixth time this year, and children between six and twelve can take part with a poster of their own.';
    const { text } = mainText(`<body>${nav}<article><h1>Keep our waters clean</h1><h3>${lead}</h3><h4>${lead.replace('poster contest', 'drawing contest')}</h4></article>
      <aside><p>${prose('Other post', 3)}</p></aside></body>`);
    expect(text).toContain('The poster contest for children');
    expect(text).toContain('The drawing contest for children');
    expect(text).not.toContain('Other post');
  });

  it('survives very deep nesting', () => {
    const html = `<body>${'<div><span>'.repeat(5000)}deep text${'</span></div>'.repeat(5000)}</body>`;
    expect(() => mainText(html)).not.toThrow();
  });
});
