import { once } from 'node:events';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { ForwardProxyFixture, MapResolver, startServer, type LocalServer } from '@trawl/testing';
import { TargetGuard } from '@trawl/net-guard';
import { EgressProxy, type EgressRoute } from './egress-proxy.js';
import { parseProxyList, type ProxyEndpoint } from './proxy-pool.js';

// 127.0.0.2, exempted, plays a public address; 127.0.0.1 stays blocked.
const PUBLIC_IP = '127.0.0.2';

interface ProxyAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  socket: Socket;
}

/** Sends CONNECT `authority` to the proxy at `proxyUrl`; resolves with its answer and the socket. */
async function connectVia(proxyUrl: string, authority: string): Promise<ProxyAnswer> {
  const proxy = new URL(proxyUrl);
  const req = httpRequest({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: authority });
  req.end();
  const [res, socket] = (await once(req, 'connect')) as [{ statusCode: number; headers: IncomingHttpHeaders }, Socket];
  return { status: res.statusCode, headers: res.headers, socket };
}

/** An absolute-form GET through the proxy; resolves with status, headers and body. */
async function getVia(proxyUrl: string, target: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const proxy = new URL(proxyUrl);
  const req = httpRequest({ host: proxy.hostname, port: proxy.port, method: 'GET', path: target, agent: false });
  req.end();
  const [res] = (await once(req, 'response')) as [import('node:http').IncomingMessage];
  let body = '';
  for await (const chunk of res) body += String(chunk);
  return { status: res.statusCode ?? 0, headers: res.headers, body };
}

/** Everything `socket` sends until it ends. */
async function readAll(socket: Socket): Promise<string> {
  let text = '';
  for await (const chunk of socket) text += String(chunk);
  return text;
}

const endpoint = (url: string): ProxyEndpoint => {
  const [first] = parseProxyList(url);
  if (first === undefined) throw new Error('no endpoint');
  return first;
};

describe('EgressProxy', () => {
  let site: LocalServer;
  let internal: LocalServer;
  let echo: NetServer;
  let echoPort: number;
  let upstream: ForwardProxyFixture;
  let resolver: MapResolver;
  let egress: EgressProxy;
  const routes: EgressRoute[] = [];

  beforeAll(async () => {
    site = await startServer((req, res) => {
      // A page faking the proxy's refusal marks: they must not reach the browser.
      const fake = req.url === '/fake-refusal' ? { 'x-trawl-error': 'SCRAPE_BLOCKED_TARGET', 'x-trawl-retryable': 'true' } : {};
      res.writeHead(200, { 'content-type': 'text/plain', 'x-seen-host': req.headers.host ?? '', ...fake }).end(`public ${req.url ?? ''}`);
    }, { host: PUBLIC_IP });
    site.hits.length = 0;
    internal = await startServer((_r, res) => res.end('internal secret'));
    // A raw TCP service that echoes, and on the client's half-close says "bye" before ending its side.
    echo = createNetServer({ allowHalfOpen: true }, (socket) => {
      socket.on('data', (d) => socket.write(d));
      socket.on('end', () => socket.end('bye'));
      socket.on('error', () => undefined);
    });
    echo.listen(0, PUBLIC_IP);
    await once(echo, 'listening');
    echoPort = (echo.address() as AddressInfo).port;
    upstream = await new ForwardProxyFixture({ credentials: { username: 'u', password: 's3cret' } }).start();
    resolver = new MapResolver({ 'public.test': [PUBLIC_IP], 'internal.test': ['127.0.0.1'], 'rebind.test': [PUBLIC_IP, '127.0.0.1'] });
    // `flaky.test`: a DNS server that did not answer (EAI_AGAIN).
    const flaky = { resolve: (h: string) => (h === 'flaky.test' ? Promise.reject(Object.assign(new Error('queryA ETIMEOUT'), { code: 'EAI_AGAIN' })) : resolver.resolve(h)) };
    egress = new EgressProxy({ guard: new TargetGuard({ resolver: flaky, exemptAddresses: [PUBLIC_IP] }) });
    await egress.start();
  });

  afterEach(async () => {
    await Promise.all(routes.splice(0).map((r) => r.close()));
    upstream.requests.length = 0;
  });

  afterAll(async () => {
    await egress.close();
    echo.close();
    await Promise.all([site.close(), internal.close(), upstream.close(), once(echo, 'close')]);
  });

  const route = async (up: ProxyEndpoint | null): Promise<EgressRoute> => {
    const r = await egress.openRoute(up);
    routes.push(r);
    return r;
  };

  describe('direct route', () => {
    it('serves an absolute-form request to an allowed host, origin-form and Host kept', async () => {
      const r = await route(null);
      const answer = await getVia(r.url, `http://public.test:${site.port}/page?q=1`);
      expect({ status: answer.status, body: answer.body, host: answer.headers['x-seen-host'] }).toEqual({
        status: 200, body: 'public /page?q=1', host: `public.test:${site.port}`,
      });
      expect(r.stats).toEqual({ connections: 1, blocked: 0, upstreamErrors: 0, targetErrors: 0 });
    });

    it.each([
      ['a loopback literal', () => `127.0.0.1:${internal.port}`],
      ['localhost', () => `localhost:${internal.port}`],
      ['a name resolving to loopback', () => `internal.test:${internal.port}`],
      ['an IPv6 loopback literal', () => `[::1]:${internal.port}`],
    ])('refuses a CONNECT to %s with 403 and X-Trawl-Error', async (_label, authority) => {
      const r = await route(null);
      const answer = await connectVia(r.url, authority());
      answer.socket.destroy();
      expect({ status: answer.status, error: answer.headers['x-trawl-error'] }).toEqual({ status: 403, error: 'SCRAPE_BLOCKED_TARGET' });
      expect(r.stats.blocked).toBe(1);
      expect(r.lastRefusal).toMatchObject({ code: 'SCRAPE_BLOCKED_TARGET', status: 403, port: internal.port });
      expect(internal.hits).toEqual([]);
    });

    it('strips a page\'s own x-trawl-* headers: a target cannot fake a refusal', async () => {
      const r = await route(null);
      const answer = await getVia(r.url, `http://public.test:${site.port}/fake-refusal`);
      expect(answer.status).toBe(200);
      expect([answer.headers['x-trawl-error'], answer.headers['x-trawl-retryable'], answer.headers['x-seen-host']]).toEqual([undefined, undefined, `public.test:${site.port}`]);
    });

    it('tells a DNS failure that may pass (EAI_AGAIN) from a name that does not exist', async () => {
      const r = await route(null);
      const flaky = await connectVia(r.url, `flaky.test:${site.port}`);
      flaky.socket.destroy();
      expect([flaky.headers['x-trawl-error'], flaky.headers['x-trawl-retryable']]).toEqual(['SCRAPE_DNS_RESOLUTION_ERROR', 'true']);
      expect(r.lastRefusal).toMatchObject({ code: 'SCRAPE_DNS_RESOLUTION_ERROR', retryable: true });
      const plain = await getVia(r.url, `http://flaky.test:${site.port}/`);
      expect([plain.headers['x-trawl-error'], plain.headers['x-trawl-retryable']]).toEqual(['SCRAPE_DNS_RESOLUTION_ERROR', 'true']);
      const missing = await getVia(r.url, `http://missing.test:${site.port}/`);
      expect([missing.headers['x-trawl-error'], missing.headers['x-trawl-retryable']]).toEqual(['SCRAPE_DNS_RESOLUTION_ERROR', undefined]);
      expect(r.lastRefusal).toMatchObject({ code: 'SCRAPE_DNS_RESOLUTION_ERROR', retryable: false });
    });

    it('refuses an absolute-form request to a blocked host', async () => {
      const r = await route(null);
      const answer = await getVia(r.url, `http://internal.test:${internal.port}/`);
      expect({ status: answer.status, error: answer.headers['x-trawl-error'] }).toEqual({ status: 403, error: 'SCRAPE_BLOCKED_TARGET' });
      expect(internal.hits).toEqual([]);
      expect(egress.stats.blocked).toBeGreaterThanOrEqual(1);
    });

    it('checks the address it connects to, so DNS rebinding is refused', async () => {
      const r = await route(null);
      // The first answer (public) is used up by an early check; the connection gets the second (loopback).
      await new TargetGuard({ resolver, exemptAddresses: [PUBLIC_IP] }).resolveChecked('rebind.test');
      const answer = await connectVia(r.url, `rebind.test:${internal.port}`);
      answer.socket.destroy();
      expect(answer.status).toBe(403);
      expect(internal.hits).toEqual([]);
    });

    it('answers 502 with the error code when the target cannot be reached', async () => {
      const r = await route(null);
      const dns = await connectVia(r.url, 'nowhere.test:443');
      dns.socket.destroy();
      const gone = await startServer(() => undefined, { host: PUBLIC_IP });
      await gone.close();
      const refused = await connectVia(r.url, `${PUBLIC_IP}:${gone.port}`);
      refused.socket.destroy();
      expect([dns, refused].map((a) => [a.status, a.headers['x-trawl-error']])).toEqual([
        [502, 'SCRAPE_DNS_RESOLUTION_ERROR'], [502, 'SCRAPE_CONNECTION_REFUSED'],
      ]);
      expect(r.stats.targetErrors).toBe(2);
    });

    it('passes half-closes through a tunnel and leaves no socket open', async () => {
      const r = await route(null);
      const answer = await connectVia(r.url, `public.test:${echoPort}`);
      expect(answer.status).toBe(200);
      const received = readAll(answer.socket);
      answer.socket.write('hello ');
      answer.socket.end();
      // The echo service still answers after the client's FIN, then ends its side.
      expect(await received).toBe('hello bye');
      await r.whenIdle();
      expect(r.openSockets).toBe(0);
    });

    it('survives a client that vanishes and a target that resets, without leaking sockets', async () => {
      const r = await route(null);
      const vanishing = await connectVia(r.url, `public.test:${echoPort}`);
      vanishing.socket.write('x');
      vanishing.socket.destroy();
      const resetting = createNetServer((socket) => socket.on('data', () => socket.resetAndDestroy()));
      resetting.listen(0, PUBLIC_IP);
      await once(resetting, 'listening');
      try {
        const answer = await connectVia(r.url, `${PUBLIC_IP}:${(resetting.address() as AddressInfo).port}`);
        answer.socket.on('error', () => undefined);
        const closed = once(answer.socket, 'close');
        answer.socket.write('trigger');
        await closed;
        await r.whenIdle();
        expect(r.openSockets).toBe(0);
      } finally {
        resetting.close();
      }
    });

    it('carries a WebSocket upgrade through a CONNECT tunnel', async () => {
      const ws = await startServer((_r, res) => res.writeHead(426).end(), { host: PUBLIC_IP });
      const r = await route(null);
      try {
        const answer = await connectVia(r.url, `public.test:${ws.port}`);
        expect(answer.status).toBe(200);
        const head = once(answer.socket, 'data');
        answer.socket.write(`GET /chat HTTP/1.1\r\nHost: public.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n`);
        // The fixture answers 426 (no WebSocket server): what matters is that the upgrade request
        // crossed the tunnel byte for byte and the answer came back.
        expect(String((await head)[0])).toMatch(/^HTTP\/1\.1 426/);
        expect(ws.hits).toEqual(['GET /chat']);
        answer.socket.destroy();
      } finally {
        await ws.close();
      }
    });
  });

  describe('guard off', () => {
    it('serves loopback targets', async () => {
      const open = new EgressProxy({ guard: new TargetGuard({ allowPrivateTargets: true }) });
      try {
        const answer = await getVia(await open.routeFor(null), `http://127.0.0.1:${internal.port}/`);
        expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: 'internal secret' });
      } finally {
        await open.close();
        internal.hits.length = 0;
      }
    });
  });

  describe('chained to an upstream proxy', () => {
    it('tunnels through the upstream with its credentials', async () => {
      const r = await route(endpoint(upstream.urlWithCredentials));
      const answer = await connectVia(r.url, `${PUBLIC_IP}:${echoPort}`);
      expect(answer.status).toBe(200);
      const received = readAll(answer.socket);
      answer.socket.end('ping ');
      expect(await received).toBe('ping bye');
      expect(upstream.requests).toEqual([{ method: 'CONNECT', target: `${PUBLIC_IP}:${echoPort}`, authorized: true }]);
      await r.whenIdle();
    });

    it('forwards absolute-form requests in absolute form, with credentials', async () => {
      const r = await route(endpoint(upstream.urlWithCredentials));
      const target = `http://${PUBLIC_IP}:${site.port}/via-upstream`;
      const answer = await getVia(r.url, target);
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: 'public /via-upstream' });
      expect(upstream.requests).toEqual([{ method: 'GET', target, authorized: true }]);
    });

    it('reuses one shared listener per upstream', async () => {
      const a = await egress.routeFor(endpoint(upstream.urlWithCredentials));
      const b = await egress.routeFor(endpoint(upstream.urlWithCredentials));
      const direct = await egress.routeFor(null);
      expect(a).toBe(b);
      expect(a).not.toBe(direct);
      expect(a).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    });

    it('answers 502 SCRAPE_PROXY_ERROR when the upstream refuses the credentials', async () => {
      const r = await route(endpoint(`http://u:wrong@127.0.0.1:${upstream.port}`));
      const tunnel = await connectVia(r.url, `${PUBLIC_IP}:${echoPort}`);
      tunnel.socket.destroy();
      const plain = await getVia(r.url, `http://${PUBLIC_IP}:${site.port}/`);
      expect([tunnel.status, tunnel.headers['x-trawl-error'], plain.status, plain.headers['x-trawl-error']]).toEqual([
        502, 'SCRAPE_PROXY_ERROR', 502, 'SCRAPE_PROXY_ERROR',
      ]);
      expect(r.stats.upstreamErrors).toBe(2);
      expect(upstream.requests.map((x) => x.authorized)).toEqual([false, false]);
    });

    it('answers 502 SCRAPE_PROXY_ERROR when the upstream is unreachable', async () => {
      const gone = await startServer(() => undefined);
      await gone.close();
      const r = await route(endpoint(`http://127.0.0.1:${gone.port}`));
      const answer = await connectVia(r.url, `${PUBLIC_IP}:${echoPort}`);
      answer.socket.destroy();
      expect([answer.status, answer.headers['x-trawl-error']]).toEqual([502, 'SCRAPE_PROXY_ERROR']);
    });

    it('refuses a blocked target before asking the upstream', async () => {
      const r = await route(endpoint(upstream.urlWithCredentials));
      const answer = await connectVia(r.url, `internal.test:${internal.port}`);
      answer.socket.destroy();
      const plain = await getVia(r.url, `http://127.0.0.1:${internal.port}/`);
      expect([answer.status, plain.status, plain.headers['x-trawl-error']]).toEqual([403, 403, 'SCRAPE_BLOCKED_TARGET']);
      expect(upstream.requests).toEqual([]);
      expect(internal.hits).toEqual([]);
    });

    it('resolves the upstream\'s host name with the proxy resolver (the system\'s cannot): tunnels and absolute-form requests', async () => {
      const proxies = new MapResolver({ 'upstream.test': ['127.0.0.1'] });
      const named = new EgressProxy({ guard: new TargetGuard({ resolver, exemptAddresses: [PUBLIC_IP] }), proxyResolver: proxies });
      try {
        const r = await named.openRoute(endpoint(`http://u:s3cret@upstream.test:${upstream.port}`));
        const tunnel = await connectVia(r.url, `${PUBLIC_IP}:${echoPort}`);
        const received = readAll(tunnel.socket);
        tunnel.socket.end('ping ');
        expect([tunnel.status, await received]).toEqual([200, 'ping bye']);
        const plain = await getVia(r.url, `http://${PUBLIC_IP}:${site.port}/named-upstream`);
        expect({ status: plain.status, body: plain.body }).toEqual({ status: 200, body: 'public /named-upstream' });
        expect(proxies.calls).toEqual(['upstream.test', 'upstream.test']);
        expect(resolver.calls).not.toContain('upstream.test');
        // A proxy name nobody knows: the upstream's error, retryable, as an unreachable proxy.
        const lost = await named.openRoute(endpoint(`http://nowhere.test:${upstream.port}`));
        const failed = await connectVia(lost.url, `${PUBLIC_IP}:${echoPort}`);
        failed.socket.destroy();
        expect([failed.status, failed.headers['x-trawl-error']]).toEqual([502, 'SCRAPE_PROXY_ERROR']);
        await Promise.all([r.close(), lost.close()]);
      } finally {
        await named.close();
      }
    });

    it('survives the upstream dying mid-tunnel', async () => {
      const doomed = await new ForwardProxyFixture().start();
      const r = await route(endpoint(doomed.url));
      const answer = await connectVia(r.url, `${PUBLIC_IP}:${echoPort}`);
      expect(answer.status).toBe(200);
      answer.socket.on('error', () => undefined);
      const closed = once(answer.socket, 'close');
      await doomed.close();
      await closed;
      await r.whenIdle();
      expect(r.openSockets).toBe(0);
    });
  });
});
