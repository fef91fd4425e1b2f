import { PassThrough } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { createLogger } from './logger.js';

function capture() {
  const stream = new PassThrough();
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c.toString('utf8')));
  return { logger: createLogger({ role: 'test', destination: stream }), text: () => chunks.join('') };
}

describe('createLogger', () => {
  it('logs target URLs without the password of their userinfo, in fields and child bindings', () => {
    const { logger, text } = capture();
    const url = 'http://alice:s3cret-pw@example.test/private';
    logger.child({ jobId: 'j1', url }).info({ page: { sourceURL: url } }, 'scrape finished');
    logger.info({ seedUrl: url, url: 'not a url //bob:s3cret-pw@x' }, 'crawl seeded');
    const out = text();
    expect(out).not.toContain('s3cret-pw');
    expect(out).toContain('http://alice@example.test/private');
    expect(out).toContain('"jobId":"j1"');
  });

  it('still censors credentials and content', () => {
    const { logger, text } = capture();
    logger.info({ headers: { authorization: 'Bearer tok-123' }, markdown: '# secret page', apiKey: 'fc-1' }, 'x');
    expect(text()).not.toMatch(/tok-123|secret page|fc-1/);
  });
});
