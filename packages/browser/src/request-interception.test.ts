import { describe, expect, it } from '@jest/globals';
import { EventEmitter } from 'node:events';
import { interceptRequests, type BlockQuery, type PageProtocolSession, type RequestBlocker } from './request-interception.js';

/** A page protocol session: records what is sent, answers the frame tree, emits paused requests. */
class FakeSession extends EventEmitter {
  readonly sent: Array<{ method: string; params: unknown }> = [];
  send(method: string, params?: unknown): Promise<unknown> {
    this.sent.push({ method, params });
    return Promise.resolve(method === 'Page.getFrameTree' ? { frameTree: { frame: { id: 'MAIN', url: 'about:blank' } } } : {});
  }
  pause(requestId: string, url: string, resourceType: string, frameId = 'MAIN'): void {
    this.emit('Fetch.requestPaused', { requestId, request: { url }, frameId, resourceType });
  }
  outcome(requestId: string): string | undefined {
    return this.sent.find((s) => (s.params as { requestId?: string } | undefined)?.requestId === requestId)?.method;
  }
}

/** Blocks every request to ads.example and records what it was asked. */
class Blocker implements RequestBlocker {
  readonly asked: BlockQuery[] = [];
  isCandidate(url: string): boolean {
    return url.includes('ads.example');
  }
  shouldBlock(query: BlockQuery): boolean {
    this.asked.push(query);
    return query.resourceType !== 'document';
  }
}

const asSession = (fake: FakeSession) => fake as unknown as PageProtocolSession;

describe('interceptRequests', () => {
  it('does nothing without a blocker or media to skip', async () => {
    const fake = new FakeSession();
    expect(await interceptRequests(asSession(fake), { skipMedia: false, blockers: [], topUrl: () => '' })).toBeUndefined();
    expect(fake.sent).toEqual([]);
  });

  it('pauses only images, fonts and media to skip them, and lets a navigation to an image go on', async () => {
    const fake = new FakeSession();
    const interception = await interceptRequests(asSession(fake), { skipMedia: true, blockers: [], topUrl: () => 'https://news.example/' });
    const enable = fake.sent.find((s) => s.method === 'Fetch.enable')?.params as { patterns: Array<{ resourceType?: string }> };
    expect(enable.patterns.map((p) => p.resourceType)).toEqual(['Image', 'Font', 'Media']);
    fake.pause('1', 'https://news.example/photo', 'Image');
    fake.pause('2', 'https://news.example/f.woff2', 'Font');
    fake.pause('3', 'https://news.example/logo.png', 'Document');
    expect([fake.outcome('1'), fake.outcome('2'), fake.outcome('3')]).toEqual(['Fetch.failRequest', 'Fetch.failRequest', 'Fetch.continueRequest']);
    expect(interception?.skipped()).toBe(2);
  });

  it('describes candidates for the blocker: the page, an iframe, a subresource, judged from the page\'s URL', async () => {
    const fake = new FakeSession();
    const blocker = new Blocker();
    const interception = await interceptRequests(asSession(fake), { skipMedia: false, blockers: [blocker], topUrl: () => 'https://news.example/a' });
    const enable = fake.sent.find((s) => s.method === 'Fetch.enable')?.params as { patterns: Array<{ urlPattern: string; resourceType?: string }> };
    expect(enable.patterns).toEqual([{ urlPattern: '*', requestStage: 'Request' }]);
    fake.pause('page', 'https://ads.example/landing', 'Document');
    fake.pause('frame', 'https://ads.example/frame.html', 'Document', 'CHILD');
    fake.pause('xhr', 'https://ads.example/beacon', 'XHR', 'CHILD');
    fake.pause('ping', 'https://ads.example/ping', 'Ping');
    fake.pause('content', 'https://news.example/app.js', 'Script');
    expect(blocker.asked).toEqual([
      { url: 'https://ads.example/landing', sourceUrl: '', resourceType: 'document' },
      { url: 'https://ads.example/frame.html', sourceUrl: 'https://news.example/a', resourceType: 'subdocument' },
      { url: 'https://ads.example/beacon', sourceUrl: 'https://news.example/a', resourceType: 'xhr' },
      { url: 'https://ads.example/ping', sourceUrl: 'https://news.example/a', resourceType: 'other' },
    ]);
    expect(['page', 'frame', 'xhr', 'ping', 'content'].map((id) => fake.outcome(id))).toEqual([
      'Fetch.continueRequest', 'Fetch.failRequest', 'Fetch.failRequest', 'Fetch.failRequest', 'Fetch.continueRequest',
    ]);
    expect([interception?.judged(), interception?.blocked()]).toEqual([4, 3]);
    await interception?.detach();
    expect(fake.listenerCount('Fetch.requestPaused')).toBe(0);
    expect(fake.sent.at(-1)?.method).toBe('Fetch.disable');
  });
});
