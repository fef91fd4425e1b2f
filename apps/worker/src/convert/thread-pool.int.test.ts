import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { waitFor } from '@trawl/testing';
import { ThreadPool } from './thread-pool.js';

// A thread script of our own (a thread cannot load .ts): doubles `value`; `gate` holds the task until
// the test opens it; `crash` ends the thread under its task.
const dir = mkdtempSync(join(tmpdir(), 'trawl-thread-pool-'));
const SCRIPT = pathToFileURL(join(dir, 'double.mjs'));
writeFileSync(SCRIPT, `
import { parentPort } from 'node:worker_threads';
parentPort.on('message', ({ id, request }) => {
  if (request.crash) process.exit(3);
  if (request.gate) Atomics.wait(new Int32Array(request.gate), 0, 0);
  parentPort.postMessage({ id, result: request.value * 2 });
});
`);

interface Req { value: number; gate?: SharedArrayBuffer; crash?: boolean }
const pools: ThreadPool<Req, number>[] = [];
function pool(size: number, idleMs?: number): ThreadPool<Req, number> {
  const p = new ThreadPool<Req, number>(SCRIPT, size, { label: 'Doubling', ...(idleMs !== undefined ? { idleMs } : {}) });
  pools.push(p);
  return p;
}
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** A gate the thread waits at, and its opening. */
function gate(): { gate: SharedArrayBuffer; open: () => void } {
  const buffer = new SharedArrayBuffer(4);
  return {
    gate: buffer,
    open: () => {
      const cell = new Int32Array(buffer);
      Atomics.store(cell, 0, 1);
      Atomics.notify(cell, 0);
    },
  };
}

const signal = () => new AbortController().signal;

describe('ThreadPool', () => {
  it('a request that cannot be sent fails alone, also when it waited behind another; the thread goes on', async () => {
    const p = pool(1);
    await expect(p.run({ value: 1, fn: () => 1 } as unknown as Req, signal())).rejects.toThrow(/could not be cloned/);
    expect(await p.run({ value: 2 }, signal())).toBe(4);
    // Queued behind a held task: sent from the thread's reply handler, where a throw would end the process.
    const held = gate();
    const first = p.run({ value: 3, gate: held.gate }, signal());
    const unsendable = p.run({ value: 4, fn: () => 1 } as unknown as Req, signal());
    const after = p.run({ value: 5 }, signal());
    held.open();
    expect(await first).toBe(6);
    await expect(unsendable).rejects.toThrow(/could not be cloned/);
    expect(await after).toBe(10);
    expect(p.threads).toBe(1);
  });

  it('without idleMs, its threads start at once', async () => {
    const p = pool(2);
    expect(p.threads).toBe(2);
    expect(await p.run({ value: 4 }, signal())).toBe(8);
    expect(p.threads).toBe(2);
  });

  it('with idleMs, threads start as tasks need them (up to its size) and end once idle', async () => {
    const p = pool(2, 100);
    expect(p.threads).toBe(0);
    const held = [gate(), gate(), gate()];
    const runs = held.map((g, i) => p.run({ value: i, gate: g.gate }, signal()));
    // Two tasks started two threads; the third waits for one of them.
    expect(p.threads).toBe(2);
    for (const g of held) g.open();
    expect(await Promise.all(runs)).toEqual([0, 2, 4]);
    await waitFor(() => p.threads === 0, { what: 'the idle threads to end' });
    expect(await p.run({ value: 5 }, signal())).toBe(10);
    expect(p.threads).toBe(1);
  });

  it('with idleMs, a thread that dies under a task fails that task, and the next task starts a thread', async () => {
    const p = pool(1, 60_000);
    await expect(p.run({ value: 1, crash: true }, signal())).rejects.toThrow(/exited with 3/);
    expect(p.threads).toBe(0);
    expect(await p.run({ value: 3 }, signal())).toBe(6);
    expect(p.threads).toBe(1);
  });

  it('a thread that was idle and took a task is not ended by its idle time, and is once idle again', async () => {
    const p = pool(1, 50);
    // The thread is idle after its first task, its idle time running; then it takes a task that waits.
    expect(await p.run({ value: 1 }, signal())).toBe(2);
    const g = gate();
    const run = p.run({ value: 7, gate: g.gate }, signal());
    // A pool with the same idle time, idle after a task: once its thread has ended, the idle time has
    // passed for the busy one too, which is still under its task.
    const witness = pool(1, 50);
    await witness.run({ value: 1 }, signal());
    await waitFor(() => witness.threads === 0, { what: 'the witness thread to end' });
    expect(p.threads).toBe(1);
    g.open();
    expect(await run).toBe(14);
    await waitFor(() => p.threads === 0, { what: 'the thread, idle again, to end' });
  });

  it('idleMs 0 is the pool without idle ends: its threads start at once', async () => {
    expect(pool(2, 0).threads).toBe(2);
  });
});
