import type { CDPSession } from 'playwright-core';

/**
 * The kind of a request, as Playwright's `request.resourceType()` names it (`script`, `image`, `xhr`,
 * `fetch`, ...), except that a frame navigation is `document` only for the top-level frame (the page
 * itself) and `subdocument` for an iframe.
 */
const BLOCK_RESOURCE_TYPES = [
  'document', 'subdocument', 'stylesheet', 'image', 'media', 'font', 'script', 'texttrack', 'xhr', 'fetch',
  'eventsource', 'websocket', 'manifest', 'other',
] as const;

export type BlockResourceType = (typeof BLOCK_RESOURCE_TYPES)[number];

/** One request to judge with a {@link RequestBlocker}. */
export interface BlockQuery {
  /** URL requested. */
  url: string;
  /** URL of the document that issued the request, '' when unknown. */
  sourceUrl: string;
  /** Kind of request; `document` (the page itself) is never blocked. */
  resourceType: BlockResourceType;
}

/** Decides which requests fail (the ad blocker). */
export interface RequestBlocker {
  /** False when no rule could block the URL: the request goes on without being described. */
  isCandidate(url: string): boolean;
  /** True when the request must fail. */
  shouldBlock(query: BlockQuery): boolean;
}

/** What {@link interceptRequests} needs of a page's protocol session (Playwright's `CDPSession`). */
export type PageProtocolSession = Pick<CDPSession, 'send' | 'on' | 'off'>;

/** Options of {@link interceptRequests}. */
export interface InterceptionOptions {
  /**
   * Images are answered with a 1x1 placeholder (their `load` event fires, as for the real image);
   * fonts, audio and video fail unloaded.
   */
  skipMedia: boolean;
  /** A request any of them blocks fails. */
  blockers: readonly RequestBlocker[];
}

/** The requests of a page {@link interceptRequests} has seen to. */
export interface Interception {
  /** Requests failed by a blocker. */
  blocked(): number;
  /** Requests a blocker judged (candidates). */
  judged(): number;
  /** Media requests answered with a placeholder or failed unloaded. */
  skipped(): number;
  /** Stops intercepting. */
  detach(): Promise<void>;
}

/** The parts of the protocol's `Fetch.requestPaused` event read here. */
interface PausedRequest {
  requestId: string;
  request: { url: string };
  frameId: string;
  /** The protocol's resource type (`Document`, `Script`, `Image`, ...). */
  resourceType: string;
}

/** A frame of the page as the protocol's Page domain reports it. */
interface FrameInfo {
  url: string;
  parentId: string | undefined;
}

/** Protocol resource types of what {@link InterceptionOptions.skipMedia} leaves unloaded. */
const MEDIA_TYPES = ['Image', 'Font', 'Media'] as const;

/** A 1x1 transparent GIF, base64: what a skipped image gets instead of its bytes. */
const PLACEHOLDER_GIF = 'R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';
const PLACEHOLDER_HEADERS = [
  { name: 'content-type', value: 'image/gif' },
  { name: 'cache-control', value: 'no-store' },
  { name: 'access-control-allow-origin', value: '*' },
];

/**
 * Fails a page's ad and tracker requests and, with `skipMedia`, stands in for its images (a 1x1
 * placeholder) and fails its fonts, audio and video, through the page's own protocol session
 * (`context.newCDPSession(page)`), set before its first navigation. The browser pauses the requests
 * concerned (`Fetch.enable`): every request when there is a blocker, the media types only otherwise.
 * Each is let go, answered or failed (`BlockedByClient`) at once; only a blocker's candidate URLs are
 * described and judged, from the URL of the frame that asked (or of its nearest http(s) ancestor:
 * about:blank and srcdoc frames), which the session's frame events keep. A navigation (the page's, or
 * an iframe's for blockers) is never media. Undefined when there is nothing to do.
 *
 * Not through Playwright's `route`: any route makes Playwright turn the HTTP cache off for the whole
 * context (`Network.setCacheDisabled`), so every page of a crawl session fetched every stylesheet and
 * script again. Requests served from cache still pass here and stay cached; redirect hops are judged
 * too. Routes and other sessions' pauses (Playwright's for `httpCredentials`, whose challenges stay
 * with it) work beside it: each session lets go what it paused.
 *
 * Coverage: every frame in the page's renderer, and the navigation of every iframe (an ad iframe is
 * blocked whole). The pool's browsers keep a page's frames in its renderer (no site isolation, see
 * `CHROMIUM_ARGS`); a cross-site iframe in a process of its own would not be seen. Service-worker
 * requests are not seen either: contexts are created with `serviceWorkers: 'block'`.
 */
export async function interceptRequests(cdp: PageProtocolSession, options: InterceptionOptions): Promise<Interception | undefined> {
  const { skipMedia, blockers } = options;
  if (!skipMedia && blockers.length === 0) return undefined;
  const frames = blockers.length ? await trackFrames(cdp) : undefined;
  let blocked = 0;
  let judged = 0;
  let skipped = 0;
  let attached = true;
  const onPaused = (event: PausedRequest): void => {
    let outcome: 'continue' | 'fail' | 'placeholder' = 'continue';
    try {
      if (skipMedia && (MEDIA_TYPES as readonly string[]).includes(event.resourceType)) {
        skipped += 1;
        outcome = event.resourceType === 'Image' ? 'placeholder' : 'fail';
      } else if (frames) {
        const candidates = blockers.filter((b) => b.isCandidate(event.request.url));
        if (candidates.length) {
          judged += 1;
          const query = describePaused(event, frames);
          if (candidates.some((b) => b.shouldBlock(query))) {
            blocked += 1;
            outcome = 'fail';
          }
        }
      }
    } catch {
      // A request that cannot be judged is let through: blocking must never break a page.
    }
    const { requestId } = event;
    const settled = outcome === 'continue' ? cdp.send('Fetch.continueRequest', { requestId })
      : outcome === 'fail' ? cdp.send('Fetch.failRequest', { requestId, errorReason: 'BlockedByClient' })
        : cdp.send('Fetch.fulfillRequest', { requestId, responseCode: 200, responseHeaders: PLACEHOLDER_HEADERS, body: PLACEHOLDER_GIF });
    // The page may close while its request is paused: nothing left to let go then.
    settled.catch(() => undefined);
  };
  cdp.on('Fetch.requestPaused', onPaused);
  const patterns = blockers.length
    ? [{ urlPattern: '*', requestStage: 'Request' as const }]
    : MEDIA_TYPES.map((resourceType) => ({ urlPattern: '*', resourceType, requestStage: 'Request' as const }));
  await cdp.send('Fetch.enable', { patterns, handleAuthRequests: false });
  return {
    blocked: () => blocked,
    judged: () => judged,
    skipped: () => skipped,
    detach: async () => {
      if (!attached) return;
      attached = false;
      // Nothing is paused once interception is off; then the handler goes.
      await cdp.send('Fetch.disable').catch(() => undefined);
      cdp.off('Fetch.requestPaused', onPaused);
      frames?.dispose();
    },
  };
}

/** The page's frames, kept from the session's Page events (they arrive while a navigation is paused, unlike answers to `Page.getFrameTree`). */
interface FrameMap {
  readonly mainId: string;
  get(id: string): FrameInfo | undefined;
  dispose(): void;
}

async function trackFrames(cdp: PageProtocolSession): Promise<FrameMap> {
  const frames = new Map<string, FrameInfo>();
  const onAttached = (e: { frameId: string; parentFrameId?: string }) => {
    if (!frames.has(e.frameId)) frames.set(e.frameId, { url: '', parentId: e.parentFrameId });
  };
  const onNavigated = (e: { frame: { id: string; parentId?: string; url: string } }) => {
    frames.set(e.frame.id, { url: e.frame.url, parentId: e.frame.parentId });
  };
  const onDetached = (e: { frameId: string; reason?: string }) => {
    // A frame swapped into another process keeps its id and goes on.
    if (e.reason !== 'swap') frames.delete(e.frameId);
  };
  cdp.on('Page.frameAttached', onAttached);
  cdp.on('Page.frameNavigated', onNavigated);
  cdp.on('Page.frameDetached', onDetached);
  const [{ frameTree }] = await Promise.all([cdp.send('Page.getFrameTree'), cdp.send('Page.enable')]);
  // The top frame keeps its id across the page's navigations.
  const mainId = frameTree.frame.id;
  if (!frames.has(mainId)) frames.set(mainId, { url: frameTree.frame.url, parentId: undefined });
  return {
    mainId,
    get: (id) => frames.get(id),
    dispose() {
      cdp.off('Page.frameAttached', onAttached);
      cdp.off('Page.frameNavigated', onNavigated);
      cdp.off('Page.frameDetached', onDetached);
    },
  };
}

/** The site of `<origin>/favicon.ico`, as the browser asks a site for its icon (`<origin>/`); else undefined. */
function siteOfFavicon(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.pathname === '/favicon.ico' && u.search === '' ? `${u.origin}/` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Describes a paused request: its kind as Playwright names it (a frame navigation is `document` for
 * the page itself, `subdocument` for an iframe) and the URL of the document that issued it: the
 * frame's own, or its nearest http(s) ancestor's (about:blank and srcdoc frames, where ad scripts like
 * to run, inherit their parent's origin); for an iframe's navigation, its parent's.
 */
function describePaused(event: PausedRequest, frames: FrameMap): BlockQuery {
  const url = event.request.url;
  const documentUrl = (frameId: string | undefined): string => {
    for (let id = frameId, hops = 0; id !== undefined && hops < 64; id = frames.get(id)?.parentId, hops++) {
      const frameUrl = frames.get(id)?.url ?? '';
      if (/^https?:/i.test(frameUrl)) return frameUrl;
    }
    return '';
  };
  if (event.resourceType === 'Document') {
    if (event.frameId === frames.mainId) return { url, sourceUrl: '', resourceType: 'document' };
    return { url, sourceUrl: documentUrl(frames.get(event.frameId)?.parentId ?? frames.mainId), resourceType: 'subdocument' };
  }
  // The browser's own request for a site's icon belongs to a document of the icon's origin, and it may
  // leave after the frame has moved on to another site (a navigation right after the load): judged
  // from the frame's document then, a site's own favicon looked third-party and was blocked.
  const faviconSite = event.resourceType === 'Other' ? siteOfFavicon(url) : undefined;
  if (faviconSite !== undefined) return { url, sourceUrl: faviconSite, resourceType: 'other' };
  const named = event.resourceType.toLowerCase();
  return {
    url, sourceUrl: documentUrl(frames.get(event.frameId) ? event.frameId : frames.mainId),
    resourceType: (BLOCK_RESOURCE_TYPES as readonly string[]).includes(named) ? named as BlockResourceType : 'other',
  };
}
