import { describe, expect, it } from '@jest/globals';
import { fixture, rejection, testOptions, toMarkdown } from './__fixtures__/test-helpers.js';
import { readPptx } from './pptx-reader.js';

describe('readPptx', () => {
  it('reads slides in presentation order with titles, bullet levels, links and tables', async () => {
    const doc = await readPptx(fixture('deck.pptx'), testOptions());
    const { html } = doc;
    const order = ['Slide 1: Welcome to Trawl', 'Slide 2: Agenda', 'Slide 3: Numbers'].map((t) => html.indexOf(`<h2>${t}</h2>`));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(html).toContain('<p>An introduction</p>');
    expect(html).toContain('<ul><li>Crawling<ul><li>Sitemaps</li><li>Robots <strong>rules</strong></li></ul></li><li>See <a href="https://example.com/docs">the docs</a></li></ul>');
    expect(html).toContain('<p>Questions</p>');
    expect(html).toContain('<tr><th>Metric</th><th>2023</th><th>2024</th></tr>');
    expect(html).toContain('<tr><td colspan="2">Both years merged</td><td>x</td></tr>');
    expect(html).toContain('<p>A plain text box.</p>');
    expect(doc).toMatchObject({ format: 'pptx', title: 'Trawl Deck', numPages: 3, totalPages: 3, metadata: { author: 'Alan Turing' } });
    const md = toMarkdown(html);
    expect(md).toContain('## Slide 2: Agenda\n\n- Crawling\n  - Sitemaps');
    expect(md).toContain('| Metric | 2023 | 2024 |');
  });

  it('reads at most maxPages slides', async () => {
    const doc = await readPptx(fixture('deck.pptx'), testOptions({ limits: { maxPages: 2 } }));
    expect(doc).toMatchObject({ numPages: 2, totalPages: 3 });
    expect(doc.html).not.toContain('Slide 3');
    expect(doc.warnings).toEqual(['Only the first 2 of 3 slides were read.']);
  });

  it('throws SCRAPE_TIMEOUT past the deadline', async () => {
    expect((await rejection(readPptx(fixture('deck.pptx'), testOptions({ deadline: 0 })))).code).toBe('SCRAPE_TIMEOUT');
  });
});
