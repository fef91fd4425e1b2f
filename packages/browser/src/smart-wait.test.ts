import { EventEmitter } from 'node:events';
import { describe, expect, it } from '@jest/globals';
import type { BrowserContext, Request } from 'playwright-core';
import { NetworkTracker } from './smart-wait.js';

/** A context's request events, as Playwright emits them (the tracker reads nothing else). */
function fakeContext(): EventEmitter & BrowserContext {
  return new EventEmitter() as EventEmitter & BrowserContext;
}

const request = (): Request => ({}) as Request;

describe('NetworkTracker', () => {
  it('follows its context from one listener per event, whatever number of pages it serves', () => {
    const context = fakeContext();
    const network = new NetworkTracker(context);
    for (let page = 0; page < 3; page += 1) {
      network.reset();
      const r = request();
      context.emit('request', r);
      expect(network.busy()).toBe(1);
      context.emit('requestfinished', r);
      expect(network.busy()).toBe(0);
    }
    expect(['request', 'requestfinished', 'requestfailed'].map((e) => context.listenerCount(e))).toEqual([1, 1, 1]);
  });

  it('starts over on reset, as a new tracker: an earlier page\'s requests no longer count', () => {
    const context = fakeContext();
    const network = new NetworkTracker(context);
    const longPoll = request();
    context.emit('request', longPoll);
    expect(network.busy()).toBe(1);
    network.reset();
    expect(network.busy()).toBe(0);
    expect(network.idleFor()).toBeLessThan(1000);
    // Its end, during the next page, is activity on the network, not a count below zero.
    context.emit('requestfailed', longPoll);
    expect(network.busy()).toBe(0);
    const next = request();
    context.emit('request', next);
    expect(network.busy()).toBe(1);
  });

  it('stops counting a request older than its stale limit', () => {
    const context = fakeContext();
    const network = new NetworkTracker(context, 50);
    context.emit('request', request());
    expect(network.busy()).toBe(1);
    expect(network.busy(Date.now() + 60)).toBe(0);
  });
});
