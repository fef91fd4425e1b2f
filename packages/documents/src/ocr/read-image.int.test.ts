import { readFile } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import type { ParseDocumentOptions } from '../types.js';
import { expectedText, fixturePath } from './__fixtures__/test-images.js';
import { readImage } from './read-image.js';
import { TesseractOcrEngine } from './tesseract-ocr-engine.js';

const options = (over: Partial<ParseDocumentOptions>): ParseDocumentOptions => ({
  pdfMode: 'auto',
  limits: { maxPages: 10, maxInflatedBytes: 1e8, maxCells: 1e5 },
  deadline: Date.now() + 60_000,
  signal: new AbortController().signal,
  ocrLanguages: ['eng'],
  ...over,
});

describe('readImage (real tesseract)', () => {
  it.each(['page.png', 'page.jpg'])('turns %s into HTML holding its text', async (name) => {
    const text = await expectedText();
    const doc = await readImage(new Uint8Array(await readFile(fixturePath(name))), options({ ocr: new TesseractOcrEngine() }));
    expect(doc).toMatchObject({ format: 'image', numPages: 1, totalPages: 1, ocrPages: 1, warnings: [] });
    expect(doc.html).toMatch(/^<!DOCTYPE html>/);
    expect(doc.html).toContain(text.heading);
    expect(doc.html).toContain('Dredging of the channel');
  });
});
