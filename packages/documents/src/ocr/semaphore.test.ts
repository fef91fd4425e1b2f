import { describe, expect, it } from '@jest/globals';
import { TrawlError } from '@trawl/api-schema';
import { Semaphore } from './semaphore.js';

const never = new AbortController().signal;

describe('Semaphore', () => {
  it('grants up to its permits at once, then queues first come first served', async () => {
    const sem = new Semaphore(2);
    const a = await sem.acquire(never);
    const b = await sem.acquire(never);
    expect(sem.active).toBe(2);
    const order: string[] = [];
    const c = sem.acquire(never).then((release) => { order.push('c'); return release; });
    const d = sem.acquire(never).then((release) => { order.push('d'); return release; });
    expect(sem.waiting).toBe(2);
    a();
    a(); // a second call must not free another permit
    const releaseC = await c;
    expect(order).toEqual(['c']);
    expect(sem.active).toBe(2);
    b();
    const releaseD = await d;
    expect(order).toEqual(['c', 'd']);
    releaseC();
    releaseD();
    expect(sem.active).toBe(0);
    expect(sem.waiting).toBe(0);
  });

  it('drops a waiter whose signal fires, with the signal\'s error, and holds nothing for it', async () => {
    const sem = new Semaphore(1);
    const held = await sem.acquire(never);
    const ctl = new AbortController();
    const waiting = sem.acquire(ctl.signal);
    const reason = new TrawlError('SCRAPE_TIMEOUT', 'deadline');
    ctl.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    expect(sem.waiting).toBe(0);
    held();
    expect(sem.active).toBe(0);
  });

  it('rejects at once on an aborted signal, mapping a TimeoutError to SCRAPE_TIMEOUT', async () => {
    const sem = new Semaphore(1);
    const ctl = new AbortController();
    ctl.abort(new DOMException('late', 'TimeoutError'));
    await expect(sem.acquire(ctl.signal)).rejects.toMatchObject({ code: 'SCRAPE_TIMEOUT' });
    expect(sem.active).toBe(0);
  });

  it('refuses a permit count below one', () => {
    expect(() => new Semaphore(0)).toThrow(RangeError);
  });
});
