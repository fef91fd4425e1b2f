import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ForwardProxyFixture } from './forward-proxy.js';

describe('ForwardProxyFixture', () => {
  let site: Server;
  let sitePort: number;
  let proxy: ForwardProxyFixture;
  const auth = `Basic ${Buffer.from('a:b').toString('base64')}`;

  beforeAll(async () => {
    site = createServer((req, res) => res.end(`site ${req.url ?? ''}`));
    site.listen(0, '127.0.0.1');
    await once(site, 'listening');
    sitePort = (site.address() as AddressInfo).port;
    proxy = await new ForwardProxyFixture({ credentials: { username: 'a', password: 'b' } }).start();
  });

  afterAll(async () => {
    await proxy.close();
    site.close();
    await once(site, 'close');
  });

  const send = async (method: string, path: string, headers: Record<string, string>): Promise<[IncomingMessage, Socket?]> => {
    const req = request({ host: '127.0.0.1', port: proxy.port, method, path, headers, agent: false });
    req.end();
    if (method === 'CONNECT') {
      const [res, socket] = (await once(req, 'connect')) as [IncomingMessage, Socket];
      return [res, socket];
    }
    const [res] = (await once(req, 'response')) as [IncomingMessage];
    return [res];
  };

  it('answers 407 without credentials and forwards with them, recording both', async () => {
    const target = `http://127.0.0.1:${sitePort}/x`;
    const [denied] = await send('GET', target, {});
    denied.resume();
    const [served] = await send('GET', target, { 'proxy-authorization': auth });
    let body = '';
    for await (const chunk of served) body += String(chunk);
    expect([denied.statusCode, denied.headers['proxy-authenticate'], served.statusCode, body]).toEqual([
      407, 'Basic realm="fixture"', 200, 'site /x',
    ]);
    const [tunnel, socket] = await send('CONNECT', `127.0.0.1:${sitePort}`, { 'proxy-authorization': auth });
    expect(tunnel.statusCode).toBe(200);
    socket?.destroy();
    expect(proxy.requests).toEqual([
      { method: 'GET', target, authorized: false },
      { method: 'GET', target, authorized: true },
      { method: 'CONNECT', target: `127.0.0.1:${sitePort}`, authorized: true },
    ]);
    expect(proxy.urlWithCredentials).toBe(`http://a:b@127.0.0.1:${proxy.port}`);
  });
});
