import { describe, expect, it } from '@jest/globals';
import { parseRequestSchema, uploadSourceUrl } from './parse-request.js';

describe('parseRequestSchema', () => {
  it('applies scrape defaults and the neutral page-only values', () => {
    const r = parseRequestSchema.parse({ formats: ['markdown', 'html'], parsers: [{ type: 'pdf', mode: 'fast', maxPages: 3 }], origin: 'js-sdk@4' });
    expect(r.formats.map((f) => f.type)).toEqual(['markdown', 'html']);
    expect(r.parsers).toEqual([{ type: 'pdf', mode: 'fast', maxPages: 3 }]);
    expect(r).toMatchObject({ waitFor: 0, mobile: false, lockdown: false, storeInCache: false, proxy: 'auto', zeroDataRetention: false });
  });

  it.each([
    [{ waitFor: 1000 }], [{ actions: [] }], [{ mobile: true }], [{ location: { country: 'US' } }], [{ maxAge: 1 }],
    [{ lockdown: true }], [{ storeInCache: false }], [{ proxy: 'enhanced' }],
  ])('refuses the page-only option %j', (body) => {
    expect(parseRequestSchema.safeParse(body).success).toBe(false);
  });

  it('refuses formats that need a live page', () => {
    const r = parseRequestSchema.safeParse({ formats: ['markdown', 'screenshot'] });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(['formats', 1]);
  });

  it('names an upload with a file URL', () => {
    expect(uploadSourceUrl('Q3 report.pdf')).toBe('file:///Q3%20report.pdf');
  });
});
