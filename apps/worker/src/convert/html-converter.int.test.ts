import { afterAll, describe, expect, it } from '@jest/globals';
import { runHtmlPipeline } from '@trawl/html';
import { TrawlError } from '@trawl/api-schema';
import { ThreadedHtmlConverter } from './html-converter.js';

// The conversion threads as the worker runs them (the built thread script: a thread cannot load .ts).
const THREAD = new URL('../../dist/convert/html-thread.js', import.meta.url);
const converters: ThreadedHtmlConverter[] = [];
afterAll(async () => {
  await Promise.all(converters.map((c) => c.close()));
});

function converter(): ThreadedHtmlConverter {
  // Every page goes to the thread.
  const c = new ThreadedHtmlConverter(THREAD, 1, { inlineMaxChars: 0 });
  converters.push(c);
  return c;
}

const PAGE = '\ufeff<html><head><title>T\u00eatu \u{1f600}</title></head><body><article><h1>Caf\u00e9</h1>'
  + '<p>Un texte assez long pour \u00eatre le contenu principal, avec des mots \u6f22\u5b57 et une suite. </p>'.repeat(20)
  + '</article><p>stray \ud83d half</p></body></html>';
const OPTS = { url: 'http://example.test/page', formats: { markdown: true, html: true, links: true } };

describe('threaded HTML conversion', () => {
  it('converts in the thread exactly as inline (a leading U+FEFF, astral characters, a lone surrogate)', async () => {
    const out = await converter().convert(PAGE, OPTS, new AbortController().signal);
    expect({ ...out, timings: {} }).toEqual({ ...runHtmlPipeline(PAGE, OPTS), timings: {} });
  });

  it('a conversion cut off by its deadline rejects with its reason, and the next one runs on a fresh thread', async () => {
    const c = converter();
    const deadline = new AbortController();
    const cut = c.convert(PAGE.repeat(200), OPTS, deadline.signal);
    deadline.abort(new TrawlError('SCRAPE_TIMEOUT', 'deadline'));
    await expect(cut).rejects.toMatchObject({ code: 'SCRAPE_TIMEOUT' });
    const out = await c.convert(PAGE, OPTS, new AbortController().signal);
    expect(out.markdown).toContain('Caf\u00e9');
  });
});
