import { isIP } from 'node:net';
import { TrawlError } from '@trawl/api-schema';
import { isBlockedAddress } from '@trawl/net-guard';

const LOCALHOST = /^(?:.+\.)?localhost\.?$/i;

/**
 * Refuses, when a webhook is registered, a URL whose host is `localhost` or an IP literal in a blocked
 * range (loopback, private, link-local, metadata...), so the caller hears about it at once. Host names
 * are not resolved here: the delivering worker checks the address it actually connects to (DNS
 * rebinding included), and a blocked delivery ends `blocked` there.
 * @param url the webhook URL (already validated by `webhookConfigSchema`).
 * @param options.allowPrivate `TRAWL_WEBHOOK_ALLOW_PRIVATE || TRAWL_ALLOW_PRIVATE_TARGETS`: skip the check.
 * @throws TrawlError WEBHOOK_URL_BLOCKED (400), `details.reason` naming the range; BAD_REQUEST for an unparsable URL.
 */
export function assertWebhookTargetAllowed(url: string, options: { allowPrivate: boolean }): void {
  if (options.allowPrivate) return;
  // The WHATWG parser normalises numeric hosts (`2130706433`, `0x7f.1`) to dotted IPv4 first.
  let raw: string;
  try {
    raw = new URL(url).hostname;
  } catch (err) {
    throw new TrawlError('BAD_REQUEST', 'The webhook URL is not a valid URL.', { cause: err });
  }
  const host = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
  let reason: string | undefined;
  if (LOCALHOST.test(host)) reason = 'loopback';
  else if (isIP(host) !== 0) reason = isBlockedAddress(host).reason;
  if (reason === undefined) return;
  throw new TrawlError('WEBHOOK_URL_BLOCKED', 'The webhook URL points to a loopback, private, link-local or metadata address.', {
    details: { reason, hostname: host },
  });
}
