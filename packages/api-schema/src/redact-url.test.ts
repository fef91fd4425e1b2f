import { describe, expect, it } from '@jest/globals';
import { redactUrl } from './redact-url.js';

describe('redactUrl', () => {
  it('drops the password and keeps the rest', () => {
    expect(redactUrl('http://user:pa%40ss@example.com:8080/a?b=1#c')).toBe('http://user@example.com:8080/a?b=1#c');
    expect(redactUrl('https://example.com/a@b')).toBe('https://example.com/a@b');
    expect(redactUrl('https://user@example.com/')).toBe('https://user@example.com/');
    expect(redactUrl('no url //u:p@h')).toBe('no url //[redacted]@h');
  });
});
