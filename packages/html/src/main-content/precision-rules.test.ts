import { describe, expect, it } from '@jest/globals';
import { cleanHtml } from '../clean/clean-html.js';
import { domToText } from '../dom/dom-text.js';
import { parseHtml } from '../dom/parse-html.js';
import { extractMainContent } from './extract-main-content.js';

// Issue 21.2: one small synthetic page per rule (general rules, never page-specific).

function mainText(html: string): string {
  const body = cleanHtml(parseHtml(html), { baseUrl: 'https://example.com/page' });
  return domToText(extractMainContent(body).root);
}

const prose = (word: string, n: number): string => `${word} is a sentence of the story, with a clause and a point. `.repeat(n);
const nav = '<nav><a href="/">Home</a> <a href="/a">About</a> <a href="/b">Blog</a> <a href="/c">Contact</a></nav>';
const page = (article: string, before = ''): string =>
  `<html><body>${nav}<div class="page">${before}<div class="article-body">${article}</div></div><footer>© Example</footer></body></html>`;

describe('photo credits', () => {
  it('drops the credit of a figure and keeps its caption', () => {
    const text = mainText(page(`<p>${prose('Alpha', 4)}</p>
      <figure><img src="/a.jpg"><figcaption>The harbour at dawn. <span class="credit">Foto: Jane Doe</span></figcaption></figure>
      <p>${prose('Beta', 4)}</p>
      <figure><img src="/b.jpg"><figcaption><span>Boats in a row.</span> <span>(Photo: AFP)</span></figcaption></figure>
      <p>${prose('Gamma', 3)}</p>`));
    expect(text).toContain('The harbour at dawn.');
    expect(text).toContain('Boats in a row.');
    expect(text).not.toContain('Jane Doe');
    expect(text).not.toContain('Photo: AFP');
    expect(text).toContain('Gamma is a sentence');
  });

  it('keeps a short paragraph of the text that starts like a credit but sits away from pictures', () => {
    const text = mainText(page(`<p>${prose('Alpha', 4)}</p><p>Photo: the word of the year.</p><p>${prose('Beta', 4)}</p>`));
    expect(text).toContain('Photo: the word of the year.');
  });
});

describe('slideshows', () => {
  it('drops the caption list of a numbered gallery that outweighs the article', () => {
    const slides = Array.from({ length: 8 }, (_, i) =>
      `<li><h2><span class="counter">${i + 1}/8</span> Slide title ${i}</h2><p>${prose(`Slide ${i}`, 3)}</p></li>`).join('');
    const text = mainText(page(`<h1>Hotel beds</h1><p>${prose('Alpha', 4)}</p><p>${prose('Beta', 4)}</p>
      <div class="gallery"><ul class="legends">${slides}</ul></div>`));
    expect(text).toContain('Alpha is a sentence');
    expect(text).toContain('Beta is a sentence');
    expect(text).not.toContain('Slide 3 is a sentence');
  });

  it('keeps a numbered list whose counters do not share a total', () => {
    const steps = Array.from({ length: 4 }, (_, i) => `<li>${i + 1}/${i + 3} cup of flour, then stir well and wait.</li>`).join('');
    const text = mainText(page(`<p>${prose('Alpha', 4)}</p><ul>${steps}</ul><p>${prose('Beta', 3)}</p>`));
    expect(text).toContain('2/4 cup of flour');
  });
});

describe('article meta lines', () => {
  it('drops bylines with dates, category/tag lines, reading times, login and newsletter notices', () => {
    const text = mainText(page(`<p class="meta">This entry was posted on May 3 by admin.</p>
      <p><small>4 min read</small></p><p>${prose('Alpha', 4)}</p>
      <div>Kategorie: News, Politik</div><p>${prose('Beta', 4)}</p>
      <h3>Sie müssen sich einloggen, um sich an einer Diskussion beteiligen zu können.</h3>
      <p>War der Artikel nützlich?</p>
      <p><strong>Have a tip? Send it to us.</strong></p>
      <p>Subscribe now to our print edition for the full story.</p>`));
    expect(text).toContain('Alpha is a sentence');
    expect(text).toContain('Beta is a sentence');
    for (const meta of ['This entry was posted', '4 min read', 'Kategorie:', 'einloggen', 'nützlich', 'Have a tip', 'Subscribe now']) {
      expect(text).not.toContain(meta);
    }
  });

  it('drops a date standing on its own line and keeps a date inside a sentence', () => {
    const text = mainText(page(`<div class="date">03.04.2020</div><p>${prose('Alpha', 4)}</p>
      <ol><li>Smith, "A report". Retrieved <span class="date">2016-05-01</span>.</li></ol><p>${prose('Beta', 4)}</p>
      <p>For the latest stories and breaking news updates download our apps.</p>`));
    expect(text).not.toContain('03.04.2020');
    expect(text).toContain('Retrieved 2016-05-01.');
    expect(text).not.toContain('For the latest stories');
  });

  it('keeps a long paragraph that merely starts like a meta line', () => {
    const long = `Posted on the wall of the town hall, the notice listed ${prose('Delta', 3)}`;
    const text = mainText(page(`<p>${prose('Alpha', 4)}</p><p>${long}</p>`));
    expect(text).toContain('Posted on the wall of the town hall');
  });
});

describe('leads', () => {
  it('takes the lead set in the header above the content container', () => {
    const header = `<header class="article-head"><h1>The title</h1><p class="article-lead">The lead tells the news in one sentence, before the body starts.</p></header>`;
    const text = mainText(page(`<p>${prose('Alpha', 5)}</p><p>${prose('Beta', 5)}</p>`, header));
    expect(text).toContain('The lead tells the news in one sentence');
    expect(text.indexOf('The lead tells')).toBeLessThan(text.indexOf('Alpha is'));
  });

  it('does not take a header block with title, byline and picture for a lead', () => {
    const header = `<div class="lead-block"><h1>The title</h1><p>By Jane, with a long byline that reads like a sentence.</p><img src="/x.jpg"></div>`;
    const text = mainText(page(`<p>${prose('Alpha', 5)}</p><p>${prose('Beta', 5)}</p>`, header));
    expect(text).not.toContain('By Jane');
  });
});

describe('teaser sections', () => {
  const cards = (n: number): string => Array.from({ length: n }, (_, i) =>
    `<li><a href="/other-${i}">Another story number ${i}</a> with a short excerpt of it.</li>`).join('');

  it.each([
    ['Você pode gostar...'],
    ['Das Thema könnte dich auch interessieren:'],
    ['Lesen Sie auch die folgenden Beiträge:'],
    ['À lire également sur notre site'],
    ['Przeczytaj również'],
    ['Te puede interesar'],
  ])('drops a teaser block titled %s inside the content', (title) => {
    const text = mainText(page(`<p>${prose('Alpha', 5)}</p><h3>${title}</h3><ul>${cards(3)}</ul><p>${prose('Beta', 5)}</p>`));
    expect(text).toContain('Alpha is a sentence');
    expect(text).toContain('Beta is a sentence');
    expect(text).not.toContain('Another story number 1');
    expect(text).not.toContain(title.slice(0, 8));
  });

  it('keeps the next paragraph of the article after a related title standing in the body', () => {
    const text = mainText(page(`<p>${prose('Alpha', 5)}</p><p><strong>Related articles</strong></p>
      <p>${prose('Beta', 2)}</p><p>${prose('Gamma', 5)}</p>`));
    expect(text).toContain('Beta is a sentence');
    expect(text).toContain('Gamma is a sentence');
  });
});

describe('class-word hints never remove content alone', () => {
  it('keeps table rows whose classes hold a boilerplate word', () => {
    const rows = ['Lions', 'Tigers', 'Bears', 'Wolves'].map((team, i) =>
      `<tr class="player-580 row-${i}"><td>${i + 1}</td><td>${team}</td><td>${20 - i}</td><td>${40 - 3 * i}</td></tr>`).join('');
    const text = mainText(page(`<p>${prose('Alpha', 5)}</p><table><tr><th>#</th><th>Team</th><th>Games</th><th>Points</th></tr>${rows}</table><p>${prose('Beta', 5)}</p>`));
    expect(text).toContain('Tigers');
    expect(text).toContain('Wolves');
  });

  it('keeps an embedded post that the article quotes', () => {
    const text = mainText(page(`<p>${prose('Alpha', 8)}</p>
      <div class="social-media-embed"><blockquote><p>The quoted post says that the bridge is closed, and for how long.</p>— Mayor (@mayor)</blockquote></div>
      <p>${prose('Beta', 8)}</p>`));
    expect(text).toContain('The quoted post says that the bridge is closed');
  });
});

describe('link-dense content', () => {
  it('keeps a data table whose first column is links', () => {
    const rows = ['Alpha', 'Beta', 'Gamma', 'Delta'].map((name, i) =>
      `<tr><td><a href="/product/${name.toLowerCase()}">${name} product page with details</a></td><td>${i + 1}</td><td>€${i + 9}</td></tr>`).join('');
    const text = mainText(page(`<p>${prose('Intro', 5)}</p><table>${rows}</table><p>${prose('Outro', 5)}</p>`));
    expect(text).toContain('Gamma product page with details');
    expect(text).toContain('€11');
  });

  it('keeps a paragraph that is one link in a run of paragraphs', () => {
    const text = mainText(page(`<p>${prose('Alpha', 5)}</p><p><a href="/docs/a.html">first link</a></p>
      <p><a href="/docs/b.html">second link</a></p><p>${prose('Beta', 5)}</p>`));
    expect(text).toContain('first link');
    expect(text).toContain('second link');
  });

  it('keeps a sentence that is mostly one link between paragraphs of prose', () => {
    const text = mainText(page(`<p>${prose('Alpha', 5)}</p>
      <p>See <a href="/report">the full report of the commission on the future of the harbour and its trade</a> for details.</p>
      <p>${prose('Beta', 5)}</p>`));
    expect(text).toContain('the full report of the commission');
  });
});

describe('tickers inside the content', () => {
  it('drops a stream of time-stamped excerpts that sits in the content container', () => {
    const items = Array.from({ length: 5 }, (_, i) =>
      `<div class="item"><div class="label">před ${i + 2} minutami</div><h3>Headline ${i}</h3><p>${prose(`Ticker ${i}`, 3)}</p></div>`).join('');
    const text = mainText(page(`<h1>The story</h1><p>${prose('Alpha', 4)}</p><p>${prose('Beta', 4)}</p>
      <h3>Právě se děje</h3><div class="stream">${items}</div>`));
    expect(text).toContain('Alpha is a sentence');
    expect(text).toContain('Beta is a sentence');
    expect(text).not.toContain('Ticker 2 is a sentence');
  });

  it('keeps a live blog whose time-stamped entries are the page', () => {
    const items = Array.from({ length: 5 }, (_, i) =>
      `<div class="entry"><span>${i + 1} minutes ago</span><p>${prose(`Entry ${i}`, 3)}</p></div>`).join('');
    const text = mainText(page(`<h1>Live</h1>${items}`));
    expect(text).toContain('Entry 3 is a sentence');
  });
});

describe('author boxes', () => {
  it('drops an author box by its title and by its class', () => {
    const text = mainText(page(`<p>${prose('Alpha', 5)}</p><p>${prose('Beta', 5)}</p>
      <h4>Über den Autor</h4><div><p>Jane writes about harbours, ships and the people who work there.</p></div>
      <div class="author-bio"><p>John studied sports science before he became a reporter, and he lives in Bonn.</p></div>`));
    expect(text).toContain('Beta is a sentence');
    expect(text).not.toContain('Jane writes about harbours');
    expect(text).not.toContain('John studied sports science');
  });
});
