/**
 * Signals read off a fetched page that decide engine escalation: a JavaScript shell (plain HTTP got
 * an empty app frame, the browser is needed) and a bot wall (the `auto` proxy retries with the
 * enhanced tier). Pure functions over the page and its markdown.
 */

/** Status codes that mean "blocked" for the `auto` proxy retry. */
const BLOCKED_STATUSES = new Set([401, 403, 429]);

/**
 * Markers of the interstitials of widespread anti-bot services (challenge pages, block pages). Not of
 * the services themselves: the pages of a site they protect carry their sensors too (Cloudflare's
 * `/cdn-cgi/challenge-platform/` detection scripts, where its challenge pages load `.../orchestrate/`;
 * DataDome's `js.datadome.co` tag; Imperva's `_Incapsula_Resource` script; PerimeterX's
 * `client.perimeterx.net` sensor; the Turnstile widget Cloudflare offers for login and comment
 * forms, while its own challenge pages are told by their title and `_cf_chl_opt`). Taking those for walls sent such pages to the
 * browser under the default `proxy: auto`: the markers matched eight corpus pages, all of them
 * content (three within the 64 K characters scanned then), and none now.
 */
export const BOT_WALL_MARKERS: readonly RegExp[] = [
  /<title>\s*(?:Just a moment\.\.\.|Attention Required! \| Cloudflare|Access denied \| [^<]* used Cloudflare)/i,
  /cf-(?:browser-verification|challenge-(?:running|form))|_cf_chl_opt|\/cdn-cgi\/challenge-platform\/(?:h\/[a-z]\/)?orchestrate\//i,
  /captcha-delivery\.com/i, // DataDome's captcha and device-check pages
  // Imperva's block page (its incident iframe) and its JavaScript challenge (a page holding only
  // `/_Incapsula_Resource?SWJIYLWA=<hash>,<hash>`; the sensor on ordinary pages has `&ns=`, no comma).
  /<iframe[^>]*_Incapsula_Resource|_Incapsula_Resource\?SWJIYLWA=[0-9a-f]+,|Incapsula incident ID/i,
  /px-captcha|human-challenge|<title>\s*Access to this page has been denied/i, // PerimeterX / HUMAN
  /<title>\s*Access Denied\s*<\/title>[\s\S]{0,2000}Reference #\d/i, // Akamai
  /g-recaptcha[\s\S]{0,400}(?:unusual traffic|are you a robot|verify you are human)/i,
  /Please (?:verify|confirm) you are (?:a )?human|Pardon Our Interruption|Request unsuccessful\. Incapsula/i,
];

/**
 * A necessary condition for {@link BOT_WALL_MARKERS}: every marker above contains at least one of
 * these literals (ASCII only, matched case-insensitively as the markers are), so a page without any
 * of them cannot match one. One pass of one regex instead of eight (the eight took about three times
 * as long, measured over 64 K characters), and only bot walls and the rare page that names one
 * (`g-recaptcha` forms, mostly) pay for the markers as well. Keep it in step with the markers: the
 * corpus equivalence test (page-signals.int.test.ts) and the crafted pages in page-signals.test.ts
 * check it.
 */
const BOT_WALL_PREFILTER = new RegExp(
  [
    'just a moment...', 'attention required! | cloudflare', 'used cloudflare', // <title> of Cloudflare pages
    'cf-browser-verification', 'cf-challenge-', '_cf_chl_opt', '/orchestrate/',
    'captcha-delivery',
    'incapsula', // _Incapsula_Resource, Incapsula incident ID, Request unsuccessful. Incapsula
    'px-captcha', 'human-challenge', 'access to this page has been denied',
    'access denied', // Akamai
    'g-recaptcha',
    'please verify you are', 'please confirm you are', 'pardon our interruption',
  ].map((literal) => literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|'),
  'i',
);

/**
 * Characters of a page the markers are looked for in. A challenge or block page is a small interstitial
 * with its marker near the top (its title, the challenge script, within its first few kilobytes); a
 * marker found only past this point belongs to a content page that embeds a widget (a reCAPTCHA
 * form, say). The scan is most of a plain scrape's check, and every page fetched with the default
 * `proxy: auto` pays it on the event loop: over 60 corpus articles (150 KB on average) the prefilter
 * took 240 us a page over 64 K characters (the window before) against about a quarter of that over
 * 16 K (scratch timing).
 */
export const BOT_WALL_SCAN_CHARS = 16 * 1024;

/**
 * Whether a response looks like an anti-bot refusal: 401/403/429, or a recognised challenge page.
 * `html`: the page, or at least its first {@link BOT_WALL_SCAN_CHARS} characters (`textHead`).
 */
export function isBotWall(statusCode: number, html: string | undefined): boolean {
  if (BLOCKED_STATUSES.has(statusCode)) return true;
  if (!html) return false;
  const head = html.length > BOT_WALL_SCAN_CHARS ? html.slice(0, BOT_WALL_SCAN_CHARS) : html;
  if (!BOT_WALL_PREFILTER.test(head)) return false;
  return BOT_WALL_MARKERS.some((re) => re.test(head));
}

/** Whether an HTTP status is a success (2xx): only those may hand a JavaScript shell to the browser. */
export function isSuccessStatus(statusCode: number): boolean {
  return statusCode >= 200 && statusCode < 300;
}

/** Empty mount points of client-rendered apps (React, Vue, Next, Nuxt, Angular, Svelte...). */
const EMPTY_MOUNT = /<(?:div|main|section|app-root)\b[^>]*\bid\s*=\s*["']?(?:root|app|__next|__nuxt|___gatsby|svelte|main-app|application)["']?[^>]*>\s*<\/(?:div|main|section|app-root)>|<app-root[^>]*>\s*<\/app-root>/i;
const NOSCRIPT_JS = /<noscript[^>]*>[\s\S]{0,600}?(?:enable|need|requires?|turn on)[\s\S]{0,60}?javascript/i;
const SCRIPT_TAG = /<script\b/i;

/** Visible words of a markdown text: links and images reduced to their text, syntax dropped. */
function visibleText(markdown: string): string {
  return markdown
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[#>*_`|~-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Visible text a page needs to be no JavaScript shell, characters (of {@link visibleText}). */
const SHELL_MAX_TEXT = 250;

/**
 * Whether {@link visibleText} of `markdown` has at least `min` characters, decided from ASCII letters
 * and digits outside parentheses alone: every such character is kept by visibleText as it is (only
 * link and image targets, in parentheses, are dropped), so reaching `min` of them settles it in one
 * pass without copies, and usually within the first lines. False means "not shown this way".
 */
function hasVisibleText(markdown: string, min: number): boolean {
  let depth = 0;
  let count = 0;
  for (let i = 0; i < markdown.length; i++) {
    const c = markdown.charCodeAt(i);
    if (c === 0x28) depth++;
    else if (c === 0x29) depth = Math.max(0, depth - 1);
    else if (depth === 0 && ((c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a)) && ++count >= min) return true;
  }
  return false;
}

/**
 * Whether plain HTTP fetched a JavaScript shell: a page with scripts whose content only exists after
 * they run. It needs scripts and little text, and either an empty app mount point, a noscript
 * "enable JavaScript" notice, or next to no text at all.
 */
export function isJavascriptShell(html: string | (() => string), markdown: string): boolean {
  // The markdown first: an ordinary page's first lines show it has text (one pass, no copies), and
  // its HTML is then never read (`html` as a function: a page converted in a thread is not decoded
  // on this one). The visible text proper is four passes over the markdown, each making a copy:
  // about 80 us of a sync scrape's event loop, spent only on pages with scripts and little text.
  if (hasVisibleText(markdown, SHELL_MAX_TEXT)) return false;
  const page = typeof html === 'string' ? html : html();
  if (!SCRIPT_TAG.test(page)) return false;
  const text = visibleText(markdown);
  if (text.length >= SHELL_MAX_TEXT) return false;
  return EMPTY_MOUNT.test(page) || NOSCRIPT_JS.test(page) || text.length < 40;
}
