import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, jest } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import { waitFor } from '@trawl/testing';
import type { PageText } from '../types.js';
import { expectedText, expectedWords, fixturePath, tiledPage, twoFrameTiff } from './__fixtures__/test-images.js';
import { ocrEngineAvailable, TesseractOcrEngine } from './tesseract-ocr-engine.js';

// Other work on a loaded 2-core machine can slow tesseract several times over.
jest.setTimeout(30_000);

const SYSTEM_TESSDATA = '/usr/share/tesseract-ocr/5/tessdata';
const never = new AbortController().signal;

async function failure(p: Promise<unknown>): Promise<{ code: string; details: unknown } | unknown> {
  try {
    await p;
  } catch (err) {
    return err instanceof TrawlError ? { code: err.code, details: err.details } : err;
  }
  return undefined;
}

/** Share of the expected words found among the recognized ones (lower-cased, punctuation stripped). */
function recall(page: PageText, expected: string[]): number {
  const found = new Set(page.runs.flatMap((r) => r.text.toLowerCase().split(/[^\p{L}\p{N}]+/u)).filter(Boolean));
  return expected.filter((w) => found.has(w)).length / expected.length;
}

/** tesseract processes that are children of this process, from /proc (the tests run in band). */
async function childTesseracts(): Promise<number> {
  let n = 0;
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // "pid (comm) state ppid ...": comm may hold spaces, so split after the last ')'.
    const m = /\((.*)\) \S+ (\d+)/s.exec(stat);
    if (m?.[1] === 'tesseract' && Number(m[2]) === process.pid) n++;
  }
  return n;
}

describe('TesseractOcrEngine (real tesseract)', () => {
  const engine = new TesseractOcrEngine();
  let png: Uint8Array;
  let jpeg: Uint8Array;
  let words: string[];
  let bigPage: Uint8Array;

  beforeAll(async () => {
    png = new Uint8Array(await readFile(fixturePath('page.png')));
    jpeg = new Uint8Array(await readFile(fixturePath('page.jpg')));
    words = expectedWords(await expectedText());
    bigPage = await tiledPage(3, 9); // 2400 x 2997: several seconds of OCR
  });

  it('lists the installed languages without osd', async () => {
    const languages = await engine.languages();
    expect(languages).toContain('eng');
    expect(languages).not.toContain('osd');
    expect(await ocrEngineAvailable(engine)).toBe(true);
  });

  it.each([['PNG', () => png], ['JPEG', () => jpeg]])('recognizes the words of the %s fixture, in image pixels', async (_name, image) => {
    const page = await engine.recognize(image(), { languages: ['eng'], signal: never, pageNumber: 4 });
    expect(page).toMatchObject({ pageNumber: 4, width: 800, height: 333, source: 'ocr', links: [] });
    expect(recall(page, words)).toBeGreaterThanOrEqual(0.9);
    for (const run of page.runs) {
      expect(run.x).toBeGreaterThanOrEqual(0);
      expect(run.y).toBeGreaterThanOrEqual(0);
      expect(run.x + run.width).toBeLessThanOrEqual(page.width);
      expect(run.y + run.height).toBeLessThanOrEqual(page.height);
      expect(run.confidence).toBeGreaterThanOrEqual(0);
    }
    // The 32 px heading is recognized as larger than the 20 px body text.
    const heading = page.runs.find((r) => r.text === 'Harbour');
    const body = page.runs.find((r) => r.text === 'northern');
    expect(heading?.fontSize).toBeGreaterThan(28);
    expect(body?.fontSize).toBeGreaterThan(17);
    expect(body?.fontSize).toBeLessThan(23);
  });

  it('reads only the first frame of a multi-frame TIFF', async () => {
    const page = await engine.recognize(await twoFrameTiff(), { languages: ['eng'], signal: never });
    const text = page.runs.map((r) => r.text).join(' ');
    expect(text).toContain('Harbour');
    expect(text).not.toContain('Dredging');
  });

  it('refuses a missing language before running, and names it', async () => {
    expect(await failure(engine.recognize(png, { languages: ['eng', 'xyz'], signal: never }))).toEqual({
      code: 'DOCUMENT_OCR_UNAVAILABLE',
      details: { missingLanguages: ['xyz'], installedLanguages: expect.arrayContaining(['eng']) },
    });
  });

  it('reports language data tesseract lists but cannot load as unavailable', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'trawl-tessdata-'));
    try {
      await symlink(join(SYSTEM_TESSDATA, 'eng.traineddata'), join(dir, 'eng.traineddata'));
      await writeFile(join(dir, 'zzz.traineddata'), 'not a model');
      const broken = new TesseractOcrEngine({ tessdataDir: dir });
      expect(await broken.languages()).toEqual(expect.arrayContaining(['eng', 'zzz']));
      expect(await failure(broken.recognize(png, { languages: ['zzz'], signal: never }))).toMatchObject({
        code: 'DOCUMENT_OCR_UNAVAILABLE',
        details: { reason: 'languageDataUnreadable' },
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reports a missing binary as unavailable', async () => {
    const missing = new TesseractOcrEngine({ binary: '/nonexistent/tesseract' });
    expect(await failure(missing.languages())).toMatchObject({ code: 'DOCUMENT_OCR_UNAVAILABLE', details: { reason: 'binaryMissing' } });
    expect(await failure(missing.recognize(png, { languages: ['eng'], signal: never }))).toMatchObject({ code: 'DOCUMENT_OCR_UNAVAILABLE' });
    expect(await ocrEngineAvailable(missing)).toBe(false);
  });

  it('reports an image that cannot be decoded as a corrupt image', async () => {
    const damaged = new Uint8Array(png);
    for (let i = 200; i < 4000; i++) damaged[i] = (i * 7919) & 0xff;
    expect(await failure(engine.recognize(damaged, { languages: ['eng'], signal: never }))).toEqual({
      code: 'DOCUMENT_CORRUPT', details: { format: 'image', imageType: 'png' },
    });
  });

  it('never lets tesseract read input as a list of files to open', async () => {
    // Tesseract reads unrecognized input as file names: this would OCR the fixture from disk.
    const fileList = new TextEncoder().encode(`${fixturePath('page.png')}\n`);
    expect(await failure(engine.recognize(fileList, { languages: ['eng'], signal: never }))).toMatchObject({ code: 'DOCUMENT_CORRUPT' });
  });

  it('refuses a decompression bomb by its header', async () => {
    const small = new TesseractOcrEngine({ maxPixels: 100_000 });
    expect(await failure(small.recognize(png, { languages: ['eng'], signal: never }))).toMatchObject({
      code: 'DOCUMENT_TOO_LARGE', details: { limit: 'pixels' },
    });
  });

  it('kills tesseract when the signal fires, with the signal\'s error', async () => {
    const two = new TesseractOcrEngine({ maxProcesses: 2 });
    const ctl = new AbortController();
    const witnessCtl = new AbortController();
    const order: string[] = [];
    // The same page, not aborted, started alongside: a run that waited for tesseract to finish
    // instead of killing it could not end before this one does.
    const witness = two.recognize(bigPage, { languages: ['eng'], signal: witnessCtl.signal })
      .then(() => order.push('witness finished'), () => order.push('witness stopped'));
    const running = two.recognize(bigPage, { languages: ['eng'], signal: ctl.signal });
    await waitFor(async () => (await childTesseracts()) === 2, { what: 'both tesseract processes running' });
    ctl.abort(new DOMException('deadline', 'TimeoutError'));
    expect(await failure(running)).toMatchObject({ code: 'SCRAPE_TIMEOUT' });
    order.push('aborted run ended');
    witnessCtl.abort(new DOMException('done', 'AbortError'));
    await witness;
    expect(order).toEqual(['aborted run ended', 'witness stopped']);
    expect(two.load).toEqual({ running: 0, waiting: 0 });
    expect(await childTesseracts()).toBe(0);
  });

  it('rethrows a TrawlError reason as it is', async () => {
    const ctl = new AbortController();
    const reason = new TrawlError('JOB_CANCELLED', 'cancelled');
    const running = engine.recognize(bigPage, { languages: ['eng'], signal: ctl.signal });
    await waitFor(async () => (await childTesseracts()) === 1, { what: 'tesseract running' });
    ctl.abort(reason);
    await expect(running).rejects.toBe(reason);
  });

  it('kills tesseract at its own time cap', async () => {
    const capped = new TesseractOcrEngine({ timeoutMs: 300 });
    expect(await failure(capped.recognize(bigPage, { languages: ['eng'], signal: never }))).toEqual({
      code: 'SCRAPE_TIMEOUT', details: { timeoutMs: 300 },
    });
    expect(await childTesseracts()).toBe(0);
  });

  it('runs at most maxProcesses tesseract processes at once', async () => {
    const two = new TesseractOcrEngine({ maxProcesses: 2 });
    let maxSeen = 0;
    let maxWaiting = 0;
    const calls = Array.from({ length: 4 }, () => two.recognize(png, { languages: ['eng'], signal: never }));
    let done = false;
    const all = Promise.all(calls).finally(() => { done = true; });
    while (!done) {
      maxSeen = Math.max(maxSeen, await childTesseracts());
      maxWaiting = Math.max(maxWaiting, two.load.waiting);
      await Promise.race([all, new Promise((r) => setTimeout(r, 20))]);
    }
    const pages = await all;
    expect(maxSeen).toBe(2);
    expect(maxWaiting).toBe(2);
    for (const page of pages) expect(recall(page, words)).toBeGreaterThanOrEqual(0.9);
  });
});
