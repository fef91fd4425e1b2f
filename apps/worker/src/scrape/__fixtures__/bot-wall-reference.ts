/**
 * The bot-wall check without its prefilter (the eight case-insensitive markers over the characters
 * `isBotWall` scans, as it was before), the reference the prefiltered `isBotWall` must agree with, and crafted
 * pages of the anti-bot services the markers target, with near misses.
 */

import { BOT_WALL_MARKERS, BOT_WALL_SCAN_CHARS } from '../page-signals.js';

const BLOCKED_STATUSES = new Set([401, 403, 429]);

export function referenceIsBotWall(statusCode: number, html: string | undefined): boolean {
  if (BLOCKED_STATUSES.has(statusCode)) return true;
  if (!html) return false;
  const head = html.length > BOT_WALL_SCAN_CHARS ? html.slice(0, BOT_WALL_SCAN_CHARS) : html;
  return BOT_WALL_MARKERS.some((re) => re.test(head));
}

const filler = (n: number): string => '<p>Ordinary words of an ordinary page.</p>'.repeat(Math.ceil(n / 42)).slice(0, n);
const page = (head: string, body: string): string => `<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`;

/** Crafted pages: name, html, and whether it is a bot wall (for the reference). */
export const CRAFTED_PAGES: ReadonlyArray<{ name: string; html: string; wall: boolean }> = [
  // Cloudflare
  { name: 'cloudflare just a moment', html: page('<title>Just a moment...</title>', '<div id="cf-content">Checking your browser</div>'), wall: true },
  { name: 'cloudflare just a moment, upper case, newline', html: page('<TITLE>\n  JUST A MOMENT...</TITLE>', ''), wall: true },
  { name: 'cloudflare attention required', html: page('<title>Attention Required! | Cloudflare</title>', '<h1>Sorry, you have been blocked</h1>'), wall: true },
  { name: 'cloudflare access denied used cloudflare', html: page('<title>Access denied | example.com used Cloudflare to restrict access</title>', ''), wall: true },
  { name: 'cloudflare browser verification', html: page('<title>x</title>', '<div class="cf-browser-verification cf-im-under-attack"></div>'), wall: true },
  { name: 'cloudflare challenge running', html: page('<title>x</title>', '<div id="cf-challenge-running"></div>'), wall: true },
  { name: 'cloudflare challenge form', html: page('<title>x</title>', '<form id="CF-CHALLENGE-FORM"></form>'), wall: true },
  { name: 'a login form with a Turnstile widget (not a wall)', html: page('<title>Sign in</title><script src="https://challenges.cloudflare.com/turnstile/v0/api.js"></script>', `<form><div class="cf-turnstile" data-sitekey="k"></div></form>${filler(500)}`), wall: false },
  { name: 'cloudflare challenge platform', html: page('<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script>', ''), wall: true },
  { name: 'cloudflare challenge options', html: page('<title>x</title>', '<script>(function(){window._cf_chl_opt={cvId: \'3\'};})();</script>'), wall: true },
  { name: 'cloudflare managed challenge', html: page('<script src="/cdn-cgi/challenge-platform/h/g/orchestrate/managed/v1?ray=8"></script>', ''), wall: true },
  { name: 'a page with Cloudflare\'s invisible detection script (not a wall)', html: page('<script async src=\'/cdn-cgi/challenge-platform/h/g/scripts/invisible.js?ts=1650621600\'></script>', filler(2000)), wall: false },
  { name: 'a small page with Cloudflare\'s JavaScript detections (not a wall)', html: page('<title>Post</title>', `${filler(3000)}<script>a.src='/cdn-cgi/challenge-platform/scripts/jsd/main.js';</script>`), wall: false },
  { name: 'cloudflare email protection only (not a wall)', html: page('<title>Blog</title>', `<a href="/cdn-cgi/l/email-protection">mail</a>${filler(3000)}`), wall: false },
  { name: 'a moment in the body, not the title', html: page('<title>Blog</title>', '<p>Just a moment... I will be right back.</p>'), wall: false },
  { name: 'attention required without cloudflare', html: page('<title>Attention Required! | Shop</title>', ''), wall: false },
  { name: 'a challenge script past the scanned head (not a wall)', html: page('<title>Article</title>', `${filler(40_000)}<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script>`), wall: false },
  { name: 'a large page with a reCAPTCHA form past the scanned head (not a wall)', html: page('<title>Article</title>', `${filler(70_000)}<div class="g-recaptcha"></div><p>Please verify you are human to comment.</p>`), wall: false },
  // DataDome
  { name: 'datadome captcha delivery', html: page('', '<script src="https://ct.captcha-delivery.com/c.js"></script>'), wall: true },
  { name: 'datadome geo captcha', html: page('', '<iframe src="https://GEO.CAPTCHA-DELIVERY.COM/captcha/?initialCid=x"></iframe>'), wall: true },
  { name: 'a page with DataDome\'s tag in its head (not a wall)', html: page('<script>!function(a,b,c,d){}(window,document,"script","https://js.datadome.co/tags.js","K");var dd={"host":"api-js.DataDome.co"}</script>', filler(2000)), wall: false },
  // Imperva / Incapsula
  { name: 'incapsula resource', html: page('<meta name="robots" content="noindex">', '<iframe src="/_Incapsula_Resource?CWUDNSAI=1"></iframe>'), wall: true },
  { name: 'incapsula javascript challenge', html: '<html><head><META NAME="robots" CONTENT="noindex,nofollow"><script src="/_Incapsula_Resource?SWJIYLWA=5074a744e2e3d891814e9a2dace20bd4,719d34d31c8e3a6e6fffd425f7e032f3"></script><body></body></html>', wall: true },
  { name: 'a page with Imperva\'s script (not a wall)', html: page('<script async src="/_Incapsula_Resource?SWJIYLWA=719d34d31c8e3a6e6fffd425f7e032f3&ns=1&cb=1402536513"></script>', filler(2000)), wall: false },
  { name: 'incapsula incident', html: page('', 'Request unsuccessful. Incapsula incident ID: 123-456'), wall: true },
  { name: 'incapsula request unsuccessful', html: page('', 'request unsuccessful. incapsula'), wall: true },
  { name: 'incapsula mentioned in an article (not a wall)', html: page('<title>CDN review</title>', `<p>Incapsula is a CDN.</p>${filler(1000)}`), wall: false },
  // PerimeterX / HUMAN
  { name: 'perimeterx px-captcha', html: page('', '<div id="px-captcha"></div>'), wall: true },
  { name: 'perimeterx block page title', html: page('<title>Access to this page has been denied.</title>', ''), wall: true },
  { name: 'a page with PerimeterX\'s sensor (not a wall)', html: page('<script src="//client.PerimeterX.net/PX123/main.min.js"></script>', filler(2000)), wall: false },
  { name: 'human challenge', html: page('', '<div class="human-challenge"></div>'), wall: true },
  // Akamai
  { name: 'akamai access denied', html: page('<TITLE>Access Denied</TITLE>', '<H1>Access Denied</H1>You don\'t have permission. Reference #18.abcd.1234'), wall: true },
  { name: 'akamai reference far away (not a wall)', html: page('<title>Access Denied</title>', `${filler(2100)} Reference #18.ab`), wall: false },
  { name: 'akamai reference without digit (not a wall)', html: page('<title>Access Denied</title>', 'Reference #x'), wall: false },
  { name: 'access denied title with spaces', html: page('<title>  Access Denied \n</title>', 'reference #9'), wall: true },
  // reCAPTCHA interstitials
  { name: 'recaptcha unusual traffic', html: page('', '<div class="g-recaptcha" data-sitekey="k"></div><p>Our systems have detected unusual traffic from your computer network.</p>'), wall: true },
  { name: 'recaptcha are you a robot', html: page('', '<div class="G-RECAPTCHA"></div> Are you a robot?'), wall: true },
  { name: 'recaptcha verify you are human', html: page('', '<div class="g-recaptcha"></div>verify you are human'), wall: true },
  { name: 'recaptcha on a contact form (not a wall)', html: page('<title>Contact</title>', `<form><div class="g-recaptcha"></div></form>${filler(500)} verify you are human`), wall: false },
  // Generic
  { name: 'please verify you are a human', html: page('<title>Verify</title>', 'Please verify you are a human'), wall: true },
  { name: 'please confirm you are human', html: page('', 'PLEASE CONFIRM YOU ARE HUMAN'), wall: true },
  { name: 'pardon our interruption', html: page('<title>Pardon Our Interruption</title>', ''), wall: true },
  { name: 'please verify your email (not a wall)', html: page('<title>Sign up</title>', 'Please verify your email address.'), wall: false },
  // The scanned window (BOT_WALL_SCAN_CHARS)
  { name: 'marker just inside the window', html: `${'x'.repeat(BOT_WALL_SCAN_CHARS - 12)}px-captcha..`, wall: true },
  { name: 'marker across the window edge (not a wall)', html: `${'x'.repeat(BOT_WALL_SCAN_CHARS - 4)}px-captcha`, wall: false },
  { name: 'marker after the window (not a wall)', html: `${'x'.repeat(BOT_WALL_SCAN_CHARS)}<div id="px-captcha"></div>`, wall: false },
  // Non-ASCII look-alikes: the markers are ASCII and case-insensitive matching never folds them in
  { name: 'dotted I (not a wall)', html: page('<title>Access to this page has been den\u0130ed</title>', 'Incapsula \u0130ncident \u0130D \u212Aey'), wall: false },
  { name: 'two-byte page with a wall', html: page('<title>Just a moment...</title>', '\u201cPlease wait\u201d \u4e2d\u6587'), wall: true },
  { name: 'plain article', html: page('<title>An article</title>', filler(20_000)), wall: false },
  { name: 'empty', html: '', wall: false },
];
