import { z } from 'zod';

/** Most headers a scrape may add to its request. */
export const MAX_REQUEST_HEADERS = 100;

// RFC 7230 `token`: what a header name may be.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Latin-1 without CR, LF or NUL (tab allowed): a CR or LF would smuggle further headers, NUL is refused
// by every HTTP stack, and neither the HTTP engine nor the browser can send code points past U+00FF.
const HEADER_VALUE = /^[^\r\n\0\u0100-\uffff]*$/;

/**
 * Headers a scrape sends to the target (`headers` of scrape, batch, crawl and map options): RFC 7230
 * token names; values in Latin-1 with no CR, LF or NUL. Each issue names the header, so a 400 says
 * which one to fix instead of the engine failing later (502) or the browser throwing (500).
 */
export const requestHeadersSchema = z.record(z.string(), z.string()).superRefine((headers, ctx) => {
  const names = Object.keys(headers);
  if (names.length > MAX_REQUEST_HEADERS) ctx.addIssue({ code: 'custom', message: `At most ${MAX_REQUEST_HEADERS} headers` });
  for (const name of names) {
    if (name.length > 256 || !HEADER_NAME.test(name)) {
      ctx.addIssue({ code: 'custom', path: [name], message: `Header name ${JSON.stringify(name)} is not a valid HTTP token` });
      continue;
    }
    const value = headers[name]!;
    if (value.length > 8192 || !HEADER_VALUE.test(value)) {
      ctx.addIssue({
        code: 'custom',
        path: [name],
        message: `Header ${JSON.stringify(name)} has a value with CR, LF, NUL or characters outside Latin-1, or longer than 8192`,
      });
    }
  }
});
