import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import type { OcrEngine, PageText, ParseDocumentOptions } from '../types.js';
import { readImage } from './read-image.js';

// A PNG header is all readImage looks at; the engines below never decode anything.
const PNG_640x480 = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 2, 128, 0, 0, 1, 224, 8, 2, 0, 0, 0,
]);

/** An engine answering with fixed words, recording what it was asked. */
class FixedOcrEngine implements OcrEngine {
  calls: { languages: string[]; pageNumber?: number }[] = [];
  constructor(private readonly words: string[]) {}
  languages(): Promise<string[]> {
    return Promise.resolve(['eng']);
  }
  recognize(_image: Uint8Array, opts: { languages: string[]; signal: AbortSignal; pageNumber?: number }): Promise<PageText> {
    this.calls.push({ languages: opts.languages, pageNumber: opts.pageNumber });
    const runs = this.words.map((text, i) => ({ text, x: 10 + i * 60, y: 20, width: 50, height: 20, fontSize: 20, bold: false, italic: false, confidence: 95 }));
    return Promise.resolve({ pageNumber: opts.pageNumber ?? 1, width: 640, height: 480, runs, links: [], source: 'ocr' });
  }
}

/** An engine that only ends when its signal fires, with the signal's reason. */
class HangingOcrEngine implements OcrEngine {
  languages(): Promise<string[]> {
    return Promise.resolve(['eng']);
  }
  recognize(_image: Uint8Array, opts: { signal: AbortSignal }): Promise<PageText> {
    return new Promise((_resolve, reject) => opts.signal.addEventListener('abort', () => reject(opts.signal.reason as Error)));
  }
}

const options = (over: Partial<ParseDocumentOptions> = {}): ParseDocumentOptions => ({
  pdfMode: 'auto',
  limits: { maxPages: 10, maxInflatedBytes: 1e8, maxCells: 1e5 },
  deadline: Date.now() + 60_000,
  signal: new AbortController().signal,
  ocrLanguages: ['eng', 'deu'],
  ...over,
});

const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    return err instanceof TrawlError ? { code: err.code, details: err.details } : err;
  }
  return undefined;
};

describe('readImage', () => {
  it('turns the recognized words into a one-page HTML document', async () => {
    const ocr = new FixedOcrEngine(['Harbour', 'Report']);
    const doc = await readImage(PNG_640x480, options({ ocr }));
    expect(doc).toMatchObject({ format: 'image', metadata: {}, numPages: 1, totalPages: 1, ocrPages: 1, warnings: [] });
    expect(doc.html).toContain('Harbour Report');
    expect(ocr.calls).toEqual([{ languages: ['eng', 'deu'], pageNumber: 1 }]);
  });

  it('warns when no text was found', async () => {
    const doc = await readImage(PNG_640x480, options({ ocr: new FixedOcrEngine([]) }));
    expect(doc.warnings).toEqual(['OCR found no text in the image.']);
  });

  it('needs an OCR engine', async () => {
    expect(await failure(readImage(PNG_640x480, options()))).toEqual({ code: 'DOCUMENT_OCR_UNAVAILABLE', details: { reason: 'noEngine' } });
  });

  it('refuses what is not an image before asking the engine', async () => {
    const ocr = new FixedOcrEngine(['x']);
    expect(await failure(readImage(new TextEncoder().encode('/etc/hostname\n'), options({ ocr })))).toEqual({
      code: 'DOCUMENT_CORRUPT', details: { format: 'image' },
    });
    expect(ocr.calls).toEqual([]);
  });

  it('fails with SCRAPE_TIMEOUT when the deadline has passed or passes during recognition', async () => {
    const ocr = new FixedOcrEngine(['x']);
    expect(await failure(readImage(PNG_640x480, options({ ocr, deadline: 1000, now: () => 2000 })))).toMatchObject({ code: 'SCRAPE_TIMEOUT' });
    expect(ocr.calls).toEqual([]);
    expect(await failure(readImage(PNG_640x480, options({ ocr: new HangingOcrEngine(), deadline: Date.now() + 30 })))).toMatchObject({
      code: 'SCRAPE_TIMEOUT',
    });
  });

  it('passes the caller\'s cancellation through to the engine', async () => {
    const ctl = new AbortController();
    const reading = readImage(PNG_640x480, options({ ocr: new HangingOcrEngine(), signal: ctl.signal }));
    ctl.abort(new TrawlError('JOB_CANCELLED', 'cancelled by the client'));
    expect(await failure(reading)).toMatchObject({ code: 'JOB_CANCELLED' });
  });
});
