import { describe, expect, it } from '@jest/globals';
import { scrapeRequestSchema } from './scrape-request.js';
import { toValidationIssues, unrecognizedKeyText, validationErrorText } from './validation-issues.js';

/** The `error` a 400 carries for a scrape body, as the API's validation middleware words it. */
function errorOf(body: unknown, apiVersion?: 'v1' | 'v2'): string | null {
  const r = scrapeRequestSchema.safeParse(body);
  return r.success ? null : validationErrorText(toValidationIssues(r.error), apiVersion ? { apiVersion } : {});
}

describe('validation error texts (the hosted service\'s wording)', () => {
  it('is "Bad Request" for an ordinary failure; the issues stay in details', () => {
    expect(errorOf({ url: 'https://example.com', mobile: 'yes' })).toBe('Bad Request');
    expect(errorOf({ url: 'https://example.com', formats: ['nope'] })).toBe('Bad Request');
  });
  it('is the fixed unknown-key text, worded per API version', () => {
    expect(errorOf({ url: 'https://example.com', bogus: 1 })).toBe('Unrecognized key in body -- please review the v2 API documentation for request body changes');
    expect(errorOf({ url: 'https://example.com', bogus: 1 }, 'v1')).toBe(unrecognizedKeyText('v1'));
    expect(unrecognizedKeyText('v1')).toContain('v1 API documentation');
  });
  it('is a custom rule\'s own message, exactly', () => {
    expect(errorOf({ url: 'https://example.com', waitFor: 40_000, timeout: 60_000 })).toBe('waitFor must not exceed half of timeout');
  });
  it.each(['not-a-valid-url', 'http://foo', 'http://com', 'https://intranet/page', 'http://foo.invalidtld', 'http://test', 'http://example/'])(
    '%s: the host has no public suffix and is no IP: the TLD text',
    (url) => {
      expect(errorOf({ url })).toBe('URL must have a valid top-level domain or be an IP address');
    },
  );
  it.each(['example.com', 'https://sub.example.co.uk/x', 'https://user.github.io/', 'http://127.0.0.1:8080/', 'http://[::1]/', 'http://localhost:3000/', 'http://app.localhost/', 'http://fixture.test/', 'https://a.example/', 'https://example.com./'])(
    '%s is accepted (public suffix, IP, or a loopback name the target guard decides on)',
    (url) => {
      expect(errorOf({ url })).toBeNull();
    },
  );
  it('a URL that does not parse keeps the plain "Bad Request"', () => {
    expect(errorOf({ url: 'http://exa mple.com' })).toBe('Bad Request');
    expect(errorOf({ url: 'ftp://example.com' })).toBe('Bad Request');
  });
});
