import { describe, expect, it } from '@jest/globals';
import { canonicalUrl } from './canonical-url.js';
import { MAX_URL_LENGTH } from './parse-http-url.js';

const keep = { ignoreQueryParameters: false };
const drop = { ignoreQueryParameters: true };

describe('canonicalUrl', () => {
  it.each([
    ['HTTP://Example.COM', 'http://example.com/'],
    ['https://example.com:443/a', 'https://example.com/a'],
    ['http://example.com:80/a', 'http://example.com/a'],
    ['https://example.com:8443/a', 'https://example.com:8443/a'],
    ['https://example.com/a#section', 'https://example.com/a'],
    ['https://example.com/a?', 'https://example.com/a'],
    ['https://example.com/a/./b/../c', 'https://example.com/a/c'],
    ['https://example.com/Case/Path', 'https://example.com/Case/Path'],
    ['  https://example.com/trimmed  ', 'https://example.com/trimmed'],
    ['https://user:pw@example.com/', 'https://user:pw@example.com/'],
    ['https://[::1]:8080/x', 'https://[::1]:8080/x'],
  ])('%s -> %s', (input, expected) => {
    expect(canonicalUrl(input, keep)).toBe(expected);
  });

  it('keeps the query in its order unless told to drop it', () => {
    expect(canonicalUrl('https://example.com/s?b=2&a=1#x', keep)).toBe('https://example.com/s?b=2&a=1');
    expect(canonicalUrl('https://example.com/s?b=2&a=1#x', drop)).toBe('https://example.com/s');
  });

  it('punycodes IDN hosts and percent-encodes non-ASCII paths', () => {
    expect(canonicalUrl('https://BÜCHER.example/Straße', keep)).toBe('https://xn--bcher-kva.example/Stra%C3%9Fe');
  });

  it('normalises percent-encoding: uppercase hex, unreserved characters decoded, reserved kept', () => {
    expect(canonicalUrl('https://example.com/%7euser/caf%c3%a9?q=a%2fb%2Bc&x=%41', keep))
      .toBe('https://example.com/~user/caf%C3%A9?q=a%2Fb%2Bc&x=A');
  });

  it.each(['mailto:someone@example.com', 'javascript:void(0)', 'ftp://example.com/f', 'data:text/html,hi', 'tel:+123'])(
    'is null for the non-http(s) %s',
    (input) => {
      expect(canonicalUrl(input, keep)).toBeNull();
    },
  );

  it.each(['', '/relative/path', 'example.com/page', '//example.com/x', 'http://', 'https://exa mple.com/'])(
    'is null for the unparsable or relative %j',
    (input) => {
      expect(canonicalUrl(input, keep)).toBeNull();
    },
  );

  it('is null beyond the length cap, before or after encoding', () => {
    const base = 'https://example.com/';
    expect(canonicalUrl(base + 'a'.repeat(MAX_URL_LENGTH - base.length), keep)).not.toBeNull();
    expect(canonicalUrl(base + 'a'.repeat(MAX_URL_LENGTH), keep)).toBeNull();
    // 3000 characters that each become 6 when percent-encoded.
    expect(canonicalUrl(base + 'é'.repeat(3000), keep)).toBeNull();
  });
});
