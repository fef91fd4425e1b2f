import type { CDPSession } from 'playwright-core';

/**
 * The kind of a request, as Playwright's `request.resourceType()` names it (`script`, `image`, `xhr`,
 * `fetch`, ...), except that a frame navigation is `document` only for the top-level frame (the page
 * itself) and `subdocument` for an iframe.
 */
export const BLOCK_RESOURCE_TYPES = [
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
  shouldBlock(query: BlockQuery): boolean;
}

/** What {@link interceptRequests} needs of a page's protocol session (Playwright's `CDPSession`). */
export type PageProtocolSession = Pick<CDPSession, 'send' | 'on' | 'off'>;

/** Options of {@link interceptRequests}. */
export interface InterceptionOptions {
  /** Images, fonts, audio and video (by the protocol's resource type) fail unloaded. */
  skipMedia: boolean;
  /** A request any of them blocks fails. */
  blockers: readonly RequestBlocker[];
  /** The page's current URL (Playwright's `page.url()`): the document every request is judged from. */
  topUrl: () => string;
}

/** The requests of a page {@link interceptRequests} has seen to. */
export interface Interception {
  /** Requests failed by a blocker. */
  blocked(): number;
  /** Requests a blocker judged (candidates). */
  judged(): number;
  /** Media requests failed unloaded. */
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

/** Protocol resource types of what {@link InterceptionOptions.skipMedia} leaves unloaded. */
const MEDIA_TYPES = ['Image', 'Font', 'Media'] as const;

/**
 * Fails a page's ad and tracker requests and, with `skipMedia`, its images, fonts, audio and video,
 * through the page's own protocol session (`context.newCDPSession(page)`), set before its first
 * navigation. The browser pauses the requests concerned (`Fetch.enable`): every request when there
 * is a blocker, the media types only otherwise. Each is let go or failed (`BlockedByClient`) at once;
 * only a blocker's candidate URLs are described and judged. A navigation (the page's, or an iframe's
 * for blockers) is never media. Undefined when there is nothing to do.
 *
 * Not through Playwright's `route`: any route makes Playwright turn the HTTP cache off for the whole
 * context (`Network.setCacheDisabled`), so every page of a crawl session fetched every stylesheet and
 * script again. Requests served from cache still pass here and stay cached. Routes and other sessions'
 * pauses (Playwright's for `httpCredentials`, whose challenges stay with it) work beside it: each
 * session lets go what it paused.
 *
 * Coverage: the page's frames and the frames in its renderer, and the navigation of every iframe (an
 * ad iframe is blocked whole). The subresources of a cross-site iframe the full browser runs in a
 * process of its own (site isolation; the headless shell keeps frames in the page's renderer) are not
 * seen. Service-worker requests are not seen either: contexts are created with `serviceWorkers: 'block'`.
 */
export async function interceptRequests(cdp: PageProtocolSession, options: InterceptionOptions): Promise<Interception | undefined> {
  const { skipMedia, blockers, topUrl } = options;
  if (!skipMedia && blockers.length === 0) return undefined;
  // The top frame keeps its id across the page's navigations.
  const mainFrameId = blockers.length ? (await cdp.send('Page.getFrameTree')).frameTree.frame.id : '';
  let blocked = 0;
  let judged = 0;
  let skipped = 0;
  let attached = true;
  const onPaused = (event: PausedRequest): void => {
    let fail = false;
    if (skipMedia && (MEDIA_TYPES as readonly string[]).includes(event.resourceType)) {
      skipped += 1;
      fail = true;
    } else {
      const candidates = blockers.filter((b) => b.isCandidate(event.request.url));
      if (candidates.length) {
        judged += 1;
        try {
          const query = describePaused(event, mainFrameId, topUrl());
          fail = candidates.some((b) => b.shouldBlock(query));
        } catch {
          // A request that cannot be judged is let through: blocking must never break a page.
        }
        if (fail) blocked += 1;
      }
    }
    const settled = fail
      ? cdp.send('Fetch.failRequest', { requestId: event.requestId, errorReason: 'BlockedByClient' })
      : cdp.send('Fetch.continueRequest', { requestId: event.requestId });
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
      cdp.off('Fetch.requestPaused', onPaused);
      await cdp.send('Fetch.disable').catch(() => undefined);
    },
  };
}

/**
 * Describes a paused request: its kind as Playwright names it (a frame navigation is `document` for
 * the page itself, `subdocument` for an iframe) and, as the URL of the document that issued it, the
 * page's own (`topUrl`). The frame tree cannot be asked while a navigation is paused (the protocol
 * answers only after it), so an iframe's requests are judged as the page's: a request from an ad
 * iframe to its own host counts as third-party, as an ad should.
 */
function describePaused(event: PausedRequest, mainFrameId: string, topUrl: string): BlockQuery {
  const url = event.request.url;
  if (event.resourceType === 'Document') {
    return event.frameId === mainFrameId ? { url, sourceUrl: '', resourceType: 'document' } : { url, sourceUrl: topUrl, resourceType: 'subdocument' };
  }
  const named = event.resourceType.toLowerCase();
  return {
    url, sourceUrl: /^https?:/i.test(topUrl) ? topUrl : '',
    resourceType: (BLOCK_RESOURCE_TYPES as readonly string[]).includes(named) ? named as BlockResourceType : 'other',
  };
}
