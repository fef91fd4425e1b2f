import { describe, expect, it } from '@jest/globals';
import { parseContentType } from './parse-content-type.js';
import { isSameSite, RedirectSession } from './redirect-session.js';

const u = (s: string): URL => new URL(s);

describe('isSameSite', () => {
  it.each([
    ['https://example.com/a', 'https://www.example.com/b', true],
    ['https://www.example.com/', 'https://example.com/', true],
    ['https://example.com/', 'https://shop.example.com/', true],
    ['http://example.com/', 'https://example.com/', true],
    ['https://example.com/', 'http://example.com/', false],
    ['https://example.com/', 'https://example.org/', false],
    ['https://a.example.com/', 'https://b.example.com/', false],
    ['https://notexample.com/', 'https://example.com/', false],
  ])('%s -> %s: %s', (from, to, expected) => {
    expect(isSameSite(u(from), u(to))).toBe(expected);
  });
});

describe('RedirectSession', () => {
  it('keeps client headers on every hop and credentials on the same site only', () => {
    const s = new RedirectSession(u('https://a.test/'), {
      'X-Custom': '1', Cookie: 'sid=abc', Authorization: 'Bearer t', Host: 'evil', 'Accept-Encoding': 'zstd',
    });
    expect(s.headersFor(u('https://www.a.test/x'))).toEqual({ 'x-custom': '1', cookie: 'sid=abc', authorization: 'Bearer t' });
    expect(s.headersFor(u('https://b.test/'))).toEqual({ 'x-custom': '1' });
  });

  it('sends cookies set by a hop back to the same host only, merged with the client cookie', () => {
    const s = new RedirectSession(u('https://a.test/'), { cookie: 'sid=abc; lang=en' });
    s.recordSetCookie(u('https://a.test/'), ['lang=fr; Path=/; HttpOnly', 'seen=1']);
    expect(s.headersFor(u('https://a.test/next')).cookie).toBe('sid=abc; lang=fr; seen=1');
    expect(s.headersFor(u('https://b.test/')).cookie).toBeUndefined();
    s.recordSetCookie(u('https://a.test/'), 'seen=; Max-Age=0');
    expect(s.headersFor(u('https://a.test/')).cookie).toBe('sid=abc; lang=fr');
  });

  it('distinguishes a revisit with new cookies from a loop', () => {
    const s = new RedirectSession(u('https://a.test/'), {});
    const before = s.loopKey(u('https://a.test/'));
    s.recordSetCookie(u('https://a.test/'), 'consent=yes');
    expect(s.loopKey(u('https://a.test/'))).not.toBe(before);
  });
});

describe('parseContentType', () => {
  it.each([
    [undefined, {}],
    ['text/html', { mimeType: 'text/html' }],
    ['Text/HTML; Charset="Shift_JIS"', { mimeType: 'text/html', charset: 'Shift_JIS' }],
    ['application/json;charset=utf-8;foo=bar', { mimeType: 'application/json', charset: 'utf-8' }],
    ['nonsense', {}],
    ['; charset=gbk', { charset: 'gbk' }],
  ])('%j', (value, expected) => {
    expect(parseContentType(value)).toEqual(expected);
  });
});
