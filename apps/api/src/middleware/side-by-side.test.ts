import { describe, expect, it } from '@jest/globals';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { chain, sideBySide } from './side-by-side.js';

/** A turn of the event loop (what a Redis round trip takes at the least). */
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A handler that records its start and end and passes `err` on once `wait` settled (none: at once, synchronously). */
function step(name: string, events: string[], opts: { wait?: () => Promise<unknown>; err?: Error; throws?: boolean } = {}): RequestHandler {
  return async (_req, _res, next) => {
    events.push(`${name} start`);
    if (opts.wait) await opts.wait();
    events.push(`${name} end`);
    if (opts.throws) throw opts.err;
    next(opts.err);
  };
}

/** Runs `handler` and resolves with what it passed to its next. */
function run(handler: RequestHandler, res: Partial<Response> = {}): Promise<unknown> {
  return new Promise((resolve) => {
    void handler({} as Request, res as Response, ((err?: unknown) => resolve(err ?? null)) as NextFunction);
  });
}

const refused = new Error('401');
const badBody = new Error('400');

describe('sideBySide', () => {
  it('runs the second while the first waits, then goes on', async () => {
    const events: string[] = [];
    expect(await run(sideBySide(step('auth', events, { wait: tick }), step('body', events), () => true))).toBeNull();
    expect(events).toEqual(['auth start', 'body start', 'body end', 'auth end']);
  });

  it('answers the first one\'s error whatever the second found; the second\'s when the first let it through', async () => {
    const events: string[] = [];
    expect(await run(sideBySide(step('auth', events, { wait: tick, err: refused }), step('body', events, { err: badBody }), () => true))).toBe(refused);
    // A refusal does not wait for the second (a body still arriving).
    events.length = 0;
    let arrive!: () => void;
    const arrived = new Promise<void>((resolve) => { arrive = resolve; });
    expect(await run(sideBySide(step('auth', events, { err: refused }), step('body', events, { wait: () => arrived }), () => true))).toBe(refused);
    expect(events).toEqual(['auth start', 'auth end', 'body start']);
    arrive();
    expect(await run(sideBySide(step('auth', events, { wait: tick, err: refused, throws: true }), step('body', events, { err: badBody, throws: true }), () => true))).toBe(refused);
    expect(await run(sideBySide(step('auth', events, { wait: tick }), step('body', events, { err: badBody }), () => true))).toBe(badBody);
  });

  it('one after the other where it may not run them together: the second only when the first let the request through', async () => {
    const events: string[] = [];
    expect(await run(sideBySide(step('auth', events, { wait: tick, err: refused }), step('body', events), () => false))).toBe(refused);
    expect(events).toEqual(['auth start', 'auth end']);
    events.length = 0;
    expect(await run(sideBySide(step('auth', events, { wait: tick }), step('body', events, { err: badBody }), () => false))).toBe(badBody);
    expect(events).toEqual(['auth start', 'auth end', 'body start', 'body end']);
  });
});

describe('chain', () => {
  it('runs handlers in turn and stops at the first error, thrown or passed on', async () => {
    const events: string[] = [];
    expect(await run(chain(step('a', events, { wait: tick }), step('b', events)))).toBeNull();
    expect(events).toEqual(['a start', 'a end', 'b start', 'b end']);
    events.length = 0;
    expect(await run(chain(step('a', events, { err: badBody, throws: true }), step('b', events)))).toBe(badBody);
    expect(events).toEqual(['a start', 'a end']);
  });

  it('runs nothing more once the request was answered (refused beside it)', async () => {
    const events: string[] = [];
    const res: { headersSent: boolean } = { headersSent: false };
    const answering: RequestHandler = (_req, _res, next) => {
      res.headersSent = true;
      next();
    };
    expect(await run(chain(step('a', events), answering, step('b', events)), res as Partial<Response>)).toBeNull();
    expect(events).toEqual(['a start', 'a end']);
  });
});
