import { describe, expect, it } from '@jest/globals';
import { CallSlots } from './call-slots.js';
import { LlmError } from './types.js';

describe('CallSlots', () => {
  it('grants up to the limit, then FIFO as slots are released; release is idempotent', async () => {
    const slots = new CallSlots(1);
    const order: string[] = [];
    const r1 = await slots.acquire();
    const p2 = slots.acquire().then((r) => (order.push('2'), r));
    const p3 = slots.acquire().then((r) => (order.push('3'), r));
    expect(slots.queued).toBe(2);
    r1();
    r1();
    const r2 = await p2;
    expect(slots.inFlight).toBe(1);
    expect(order).toEqual(['2']);
    r2();
    (await p3)();
    expect(order).toEqual(['2', '3']);
    expect(slots.inFlight).toBe(0);
  });

  it('an aborted waiter leaves the queue and never takes a slot', async () => {
    const slots = new CallSlots(1);
    const r1 = await slots.acquire();
    const controller = new AbortController();
    const p2 = slots.acquire(controller.signal);
    const p3 = slots.acquire();
    controller.abort();
    await expect(p2).rejects.toBeInstanceOf(LlmError);
    expect(slots.queued).toBe(1);
    r1();
    (await p3)();
    expect(slots.inFlight).toBe(0);
    await expect(slots.acquire(controller.signal)).rejects.toMatchObject({ kind: 'aborted' });
  });
});
