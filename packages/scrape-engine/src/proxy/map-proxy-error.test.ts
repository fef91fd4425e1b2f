import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import { mapProxyError, proxyStatusError } from './map-proxy-error.js';
import { proxyAuthorization, proxyOrigin } from './proxy-agent.js';

const coded = (code: string, message = code): Error => Object.assign(new Error(message), { code });

describe('mapProxyError', () => {
  it.each([
    ['a 407 to CONNECT', new Error('Proxy response (407) !== 200 when HTTP Tunneling'), { proxyStatus: 407 }, false],
    ['a 502 to CONNECT', new Error('Proxy response (502) !== 200 when HTTP Tunneling'), { proxyStatus: 502 }, true],
    ['a 403 to CONNECT', new Error('Proxy response (403) !== 200 when HTTP Tunneling'), { proxyStatus: 403 }, false],
    ['a 407 to an absolute-form request', new Error('Proxy Authentication Required (407)'), { proxyStatus: 407 }, false],
    ['a refused proxy connection', coded('ECONNREFUSED'), { errorCode: 'ECONNREFUSED' }, true],
    ['an unknown proxy host (in the cause)', new Error('fetch failed', { cause: coded('ENOTFOUND') }), { errorCode: 'ENOTFOUND' }, true],
    ['a connect timeout', coded('UND_ERR_CONNECT_TIMEOUT'), { errorCode: 'UND_ERR_CONNECT_TIMEOUT' }, true],
  ])('maps %s to SCRAPE_PROXY_ERROR', (_label, err, details, retryable) => {
    const mapped = mapProxyError(err);
    expect({ code: mapped?.code, details: mapped?.details, retryable: mapped?.retryable }).toEqual({
      code: 'SCRAPE_PROXY_ERROR', details, retryable,
    });
  });

  it.each([
    ['a TLS failure with the target', coded('DEPTH_ZERO_SELF_SIGNED_CERT')],
    ['a reset mid-response', coded('ECONNRESET')],
    ['a TrawlError of the guard', new TrawlError('SCRAPE_BLOCKED_TARGET', 'blocked', { cause: coded('ECONNREFUSED') })],
  ])('leaves %s to the usual mapping', (_label, err) => {
    expect(mapProxyError(err)).toBeUndefined();
  });

  it('builds status errors with messages that never name the proxy', () => {
    expect(proxyStatusError(407).message).toBe('The upstream proxy refused the credentials (407).');
    expect(proxyStatusError(429).retryable).toBe(true);
  });
});

describe('proxyAuthorization', () => {
  it('encodes the percent-decoded credentials of the URL', () => {
    const header = proxyAuthorization(new URL('http://us%20er:p%40ss%3Aword@h:1'));
    expect(Buffer.from((header ?? '').replace(/^Basic /, ''), 'base64').toString()).toBe('us er:p@ss:word');
    expect(proxyAuthorization(new URL('http://user@h:1'))).toBe(`Basic ${Buffer.from('user:').toString('base64')}`);
    expect(proxyAuthorization(new URL('http://h:1'))).toBeUndefined();
  });

  it('strips credentials from the proxy origin', () => {
    expect(proxyOrigin(new URL('https://u:p@h:8443'))).toBe('https://h:8443');
  });
});
