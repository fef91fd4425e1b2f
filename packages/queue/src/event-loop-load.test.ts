import { describe, expect, it } from '@jest/globals';
import { brotliDecompressSync, inflateRawSync } from 'node:zlib';
import type { EventLoopUtilization } from 'node:perf_hooks';
import { EventLoopLoad } from './event-loop-load.js';
import { brotli, deflateRawBuffer } from './small-compress.js';

/** A loop whose active time the test sets: utilization over a window is its active share. */
function fakeLoop() {
  const loop = { t: 0, active: 0 };
  const utilization = (current?: EventLoopUtilization, previous?: EventLoopUtilization): EventLoopUtilization => {
    if (!current) return { idle: loop.t - loop.active, active: loop.active, utilization: 0 };
    const active = current.active - (previous?.active ?? 0);
    const idle = current.idle - (previous?.idle ?? 0);
    return { idle, active, utilization: active / Math.max(1, active + idle) };
  };
  return { loop, utilization, now: () => loop.t };
}

describe('EventLoopLoad', () => {
  it('is busy after a window above its limit, and not after one below it', () => {
    const { loop, utilization, now } = fakeLoop();
    const load = new EventLoopLoad({ maxUtilization: 0.8, windowMs: 100, utilization, now });
    expect(load.busy()).toBe(false);
    loop.t += 100;
    loop.active += 95;
    expect(load.busy()).toBe(true);
    loop.t += 50; // within the window: the last measurement stands
    expect(load.busy()).toBe(true);
    loop.t += 60;
    loop.active += 20; // 20 of 110 ms
    expect(load.busy()).toBe(false);
  });

  it('1 never counts the loop busy, 0 always does', () => {
    const { loop, utilization, now } = fakeLoop();
    const never = new EventLoopLoad({ maxUtilization: 1, utilization, now });
    const always = new EventLoopLoad({ maxUtilization: 0, utilization, now });
    loop.t += 1000;
    loop.active += 1000;
    expect(never.busy()).toBe(false);
    expect(always.busy()).toBe(true);
  });

  it('measures the real loop: a blocked loop is busy', () => {
    const load = new EventLoopLoad({ maxUtilization: 0.5, windowMs: 20 });
    const until = performance.now() + 40;
    while (performance.now() < until) { /* keep the loop busy */ }
    expect(load.busy()).toBe(true);
  });
});

describe('small compressions', () => {
  it('ask the loop only for small inputs; both paths give the same bytes back', async () => {
    const small = Buffer.from('a small page '.repeat(50));
    const large = Buffer.alloc(64 * 1024, 'x');
    let asked = 0;
    const busy = (answer: boolean) => () => {
      asked++;
      return answer;
    };
    for (const answer of [false, true]) {
      expect(brotliDecompressSync(await brotli(small, {}, busy(answer)))).toEqual(small);
      expect(inflateRawSync(await deflateRawBuffer(small, { level: 3 }, busy(answer)))).toEqual(small);
    }
    expect(asked).toBe(4);
    expect(inflateRawSync(await deflateRawBuffer(large, { level: 3 }, busy(false)))).toEqual(large);
    expect(asked).toBe(4);
  });
});
