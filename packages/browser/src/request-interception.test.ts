import { describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { interceptRequests, type BlockQuery, type PageProtocolSession, type RequestBlocker } from './request-interception.js';

/** A page protocol session: records what is sent, answers the frame tree, emits page and fetch events. */
class FakeSession extends EventEmitter {
  readonly sent: Array<{ method: string; params: unknown }> = [];
  send(method: string, params?: unknown): Promise<unknown> {
    this.sent.push({ method, params });
    return Promise.resolve(method === 'Page.getFrameTree' ? { frameTree: { frame: { id: 'MAIN', url: 'about:blank' } } } : {});
  }
  navigated(id: string, url: string, parentId?: string): void {
    this.emit('Page.frameNavigated', { frame: { id, url, ...(parentId ? { parentId } : {}) } });
  }
  pause(requestId: string, url: string, resourceType: string, frameId = 'MAIN'): void {
    this.emit('Fetch.requestPaused', { requestId, request: { url }, frameId, resourceType });
  }
  outcome(requestId: string): string | undefined {
    return this.sent.find((s) => (s.params as { requestId?: string } | undefined)?.requestId === requestId)?.method;
  }
}

/** Blocks every request to ads.example but the page itself, and records what it was asked. */
class Blocker implements RequestBlocker {
  readonly asked: BlockQuery[] = [];
  isCandidate(url: string): boolean {
    if (url.includes('throws.example')) throw new Error('cannot judge');
    return url.includes('ads.example');
  }
  shouldBlock(query: BlockQuery): boolean {
    this.asked.push(query);
    return query.resourceType !== 'document';
  }
}

const asSession = (fake: FakeSession) => fake as unknown as PageProtocolSession;
const enabled = (fake: FakeSession) => fake.sent.find((s) => s.method === 'Fetch.enable')?.params as { patterns: Array<{ urlPattern: string; resourceType?: string }> };

describe('interceptRequests', () => {
  it('does nothing without a blocker or media to skip', async () => {
    const fake = new FakeSession();
    expect(await interceptRequests(asSession(fake), { skipMedia: false, blockers: [] })).toBeUndefined();
    expect(fake.sent).toEqual([]);
  });

  it('pauses only images, fonts and media to skip them: an image gets a placeholder, the others fail; a navigation to an image goes on', async () => {
    const fake = new FakeSession();
    const interception = await interceptRequests(asSession(fake), { skipMedia: true, blockers: [] });
    expect(enabled(fake).patterns.map((p) => p.resourceType)).toEqual(['Image', 'Font', 'Media']);
    fake.pause('1', 'https://news.example/photo', 'Image');
    fake.pause('2', 'https://news.example/f.woff2', 'Font');
    fake.pause('3', 'https://news.example/logo.png', 'Document');
    expect([fake.outcome('1'), fake.outcome('2'), fake.outcome('3')]).toEqual(['Fetch.fulfillRequest', 'Fetch.failRequest', 'Fetch.continueRequest']);
    const placeholder = fake.sent.find((s) => s.method === 'Fetch.fulfillRequest')?.params as { responseCode: number; body: string };
    expect(placeholder.responseCode).toBe(200);
    expect(Buffer.from(placeholder.body, 'base64').subarray(0, 6).toString()).toBe('GIF89a');
    expect(interception?.skipped()).toBe(2);
  });

  it('judges candidates from the frame that asked (its nearest http(s) ancestor for about:blank), an iframe from its parent', async () => {
    const fake = new FakeSession();
    const blocker = new Blocker();
    const interception = await interceptRequests(asSession(fake), { skipMedia: false, blockers: [blocker] });
    expect(enabled(fake).patterns).toEqual([{ urlPattern: '*', requestStage: 'Request' }]);
    fake.pause('page', 'https://ads.example/landing', 'Document');
    fake.navigated('MAIN', 'https://news.example/a');
    fake.navigated('EMBED', 'https://video.example/embed', 'MAIN');
    fake.navigated('BLANK', 'about:blank', 'EMBED');
    fake.pause('frame', 'https://ads.example/frame.html', 'Document', 'EMBED');
    fake.pause('xhr', 'https://ads.example/beacon', 'XHR', 'EMBED');
    fake.pause('ping', 'https://ads.example/ping', 'Ping', 'BLANK');
    fake.pause('unknown', 'https://ads.example/x.js', 'Script', 'GONE');
    fake.pause('content', 'https://news.example/app.js', 'Script');
    fake.pause('throws', 'https://throws.example/a.js', 'Script');
    expect(blocker.asked).toEqual([
      { url: 'https://ads.example/landing', sourceUrl: '', resourceType: 'document' },
      { url: 'https://ads.example/frame.html', sourceUrl: 'https://news.example/a', resourceType: 'subdocument' },
      { url: 'https://ads.example/beacon', sourceUrl: 'https://video.example/embed', resourceType: 'xhr' },
      { url: 'https://ads.example/ping', sourceUrl: 'https://video.example/embed', resourceType: 'other' },
      { url: 'https://ads.example/x.js', sourceUrl: 'https://news.example/a', resourceType: 'script' },
    ]);
    expect(['page', 'frame', 'xhr', 'ping', 'unknown', 'content', 'throws'].map((id) => fake.outcome(id))).toEqual([
      'Fetch.continueRequest', 'Fetch.failRequest', 'Fetch.failRequest', 'Fetch.failRequest', 'Fetch.failRequest', 'Fetch.continueRequest', 'Fetch.continueRequest',
    ]);
    expect([interception?.judged(), interception?.blocked()]).toEqual([5, 4]);
    await interception?.detach();
    expect(fake.listenerCount('Fetch.requestPaused')).toBe(0);
    expect(fake.listenerCount('Page.frameNavigated')).toBe(0);
    expect(fake.sent.at(-1)?.method).toBe('Fetch.disable');
  });

  it("judges the browser's request for a site's favicon from that site: sent after the page moved on to another one, it is not that one's", async () => {
    const fake = new FakeSession();
    const blocker = new Blocker();
    await interceptRequests(asSession(fake), { skipMedia: false, blockers: [blocker] });
    fake.navigated('MAIN', 'https://news.example/a');
    fake.pause('icon', 'https://ads.example/favicon.ico', 'Other');
    fake.pause('declared', 'https://ads.example/icon.png?v=2', 'Other');
    expect(blocker.asked).toEqual([
      { url: 'https://ads.example/favicon.ico', sourceUrl: 'https://ads.example/', resourceType: 'other' },
      { url: 'https://ads.example/icon.png?v=2', sourceUrl: 'https://news.example/a', resourceType: 'other' },
    ]);
  });

  it('with both, pauses every request: media skipped, ads blocked, the rest let go', async () => {
    const fake = new FakeSession();
    const interception = await interceptRequests(asSession(fake), { skipMedia: true, blockers: [new Blocker()] });
    expect(enabled(fake).patterns).toEqual([{ urlPattern: '*', requestStage: 'Request' }]);
    fake.navigated('MAIN', 'https://news.example/a');
    fake.pause('img', 'https://news.example/photo.jpg', 'Image');
    fake.pause('ad', 'https://ads.example/tag.js', 'Script');
    fake.pause('css', 'https://news.example/s.css', 'Stylesheet');
    expect(['img', 'ad', 'css'].map((id) => fake.outcome(id))).toEqual(['Fetch.fulfillRequest', 'Fetch.failRequest', 'Fetch.continueRequest']);
    expect([interception?.skipped(), interception?.blocked(), interception?.judged()]).toEqual([1, 1, 1]);
  });
});
