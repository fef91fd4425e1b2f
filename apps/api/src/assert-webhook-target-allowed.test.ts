import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import { assertWebhookTargetAllowed } from './assert-webhook-target-allowed.js';

function reasonFor(url: string): string | undefined {
  try {
    assertWebhookTargetAllowed(url, { allowPrivate: false });
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(TrawlError);
    expect((err as TrawlError).code).toBe('WEBHOOK_URL_BLOCKED');
    return (err as TrawlError).details?.reason as string;
  }
}

describe('assertWebhookTargetAllowed', () => {
  it.each([
    ['http://127.0.0.1:8080/hook', 'loopback'],
    ['http://localhost/hook', 'loopback'],
    ['http://api.localhost./hook', 'loopback'],
    ['http://10.1.2.3/', 'private'],
    ['http://192.168.0.10/', 'private'],
    ['http://169.254.169.254/latest/meta-data', 'cloud-metadata'],
    ['http://[::1]/', 'loopback'],
    ['http://[fe80::1]/', 'link-local'],
    ['http://[::ffff:10.0.0.1]/', 'private (ipv4-mapped)'],
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
  ])('refuses %s (%s)', (url, reason) => {
    expect(reasonFor(url)).toBe(reason);
  });

  it('accepts public addresses and host names (the worker checks what they resolve to)', () => {
    expect(reasonFor('https://hooks.example.com/in')).toBeUndefined();
    expect(reasonFor('http://93.184.216.34/')).toBeUndefined();
    expect(reasonFor('http://[2606:4700::1111]/')).toBeUndefined();
  });

  it('allows everything when private targets are allowed', () => {
    expect(() => assertWebhookTargetAllowed('http://127.0.0.1/', { allowPrivate: true })).not.toThrow();
  });
});
