import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Writable } from 'node:stream';
import { createLogger } from './logger.js';
import { throttledErrorLog } from './throttled-error-log.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: createLogger({ role: 'test', destination }) };
}

afterEach(() => {
  jest.useRealTimers();
});

describe('throttledErrorLog', () => {
  it('logs the first error, then one line per interval with the count left out', () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const { lines, logger } = capture();
    const log = throttledErrorLog(logger, 'redis connection error', { intervalMs: 30_000, fields: { client: 'api' } });
    for (let i = 0; i < 50; i++) log(new Error(`ECONNREFUSED ${i}`));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'redis connection error', client: 'api', err: { message: 'ECONNREFUSED 0' } });
    expect(lines[0]).not.toHaveProperty('suppressed');
    jest.setSystemTime(1_000_000 + 30_000);
    log(new Error('ECONNREFUSED again'));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ suppressed: 49, err: { message: 'ECONNREFUSED again' } });
  });
});
