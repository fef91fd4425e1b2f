import { describe, expect, it } from '@jest/globals';
import { pdfDateToIso, pdfMetadata } from './pdf-metadata.js';

describe('pdfDateToIso', () => {
  it('reads PDF dates with and without the D: prefix and time zones', () => {
    expect(pdfDateToIso("D:20090401163925-07'00'")).toBe('2009-04-01T23:39:25.000Z');
    expect(pdfDateToIso('D:20240105')).toBe('2024-01-05T00:00:00.000Z');
    expect(pdfDateToIso('20240105120000Z')).toBe('2024-01-05T12:00:00.000Z');
  });
  it('reads XMP dates and rejects garbage', () => {
    expect(pdfDateToIso('2024-01-05T12:00:00+02:00')).toBe('2024-01-05T10:00:00.000Z');
    expect(pdfDateToIso('yesterday')).toBeUndefined();
    expect(pdfDateToIso(42)).toBeUndefined();
  });
});

describe('pdfMetadata', () => {
  it('prefers the Info dictionary, falls back to XMP, and cleans strings', () => {
    const xmp = new Map<string, unknown>([['dc:title', 'XMP Title'], ['dc:creator', ['Ann', 'Bob']], ['xmp:createdate', '2020-02-02T00:00:00Z']]);
    const { title, metadata } = pdfMetadata({ info: { Title: '  \u0000 ', Author: '', Subject: 'On\u0001 things', Language: 'en-GB' }, metadata: { get: (k) => xmp.get(k) } });
    expect(title).toBe('XMP Title');
    expect(metadata).toEqual({ title: 'XMP Title', author: 'Ann, Bob', subject: 'On things', creationDate: '2020-02-02T00:00:00.000Z', language: 'en-GB' });
  });
  it('survives missing or odd sources', () => {
    expect(pdfMetadata({})).toEqual({ title: undefined, metadata: {} });
    expect(pdfMetadata({ info: 'nope', metadata: { get: () => { throw new Error('bad xmp'); } } })).toEqual({ title: undefined, metadata: {} });
  });
});
