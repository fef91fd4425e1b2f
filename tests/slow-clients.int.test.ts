import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { connect, type Socket } from 'node:net';
import { BOOT_KEY, TestCluster } from './helpers/cluster.js';
import { rawExchange } from './helpers/raw-http.js';

jest.setTimeout(60_000);

// Gateways alone (no worker): nothing queued here is fetched.
let timeouts: TestCluster;
let capped: TestCluster;
const portOf = (c: TestCluster) => Number(new URL(c.api.url).port);

beforeAll(async () => {
  timeouts = await TestCluster.start({ TRAWL_HEADERS_TIMEOUT_MS: '1000', TRAWL_BODY_TIMEOUT_MS: '2000' }, { worker: false });
  capped = await TestCluster.start({ TRAWL_MAX_CONNECTIONS_PER_CLIENT: '4' }, { worker: false });
});

afterAll(async () => {
  await timeouts?.stop();
  await capped?.stop();
});

/** Opens a connection, writes `first`, then nothing more; resolves with what was read once the server closes it. */
function stall(port: number, first: string): Promise<string> {
  return rawExchange(port, [first], { end: 'wait' }).then((r) => r.text);
}

describe('slow clients', () => {
  it('a client that never finishes its headers is answered 408 and cut', async () => {
    const text = await stall(portOf(timeouts), 'POST /v2/scrape HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    expect(text).toMatch(/^HTTP\/1\.1 408/);
    expect((await timeouts.call('GET', '/health/live')).status).toBe(200);
  });

  it('a body that trickles is cut, authenticated or not', async () => {
    const port = portOf(timeouts);
    const authed = stall(port, `POST /v2/scrape HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${BOOT_KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`);
    // Unauthenticated: answered 401 at once, but the unread body kept the connection open.
    const anonymous = stall(port, 'POST /v2/scrape HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    expect(await authed).toMatch(/^HTTP\/1\.1 408/);
    expect(await anonymous).toMatch(/^HTTP\/1\.1 401/);
    expect((await timeouts.call('GET', '/health/live')).status).toBe(200);
  });

  it('the body timeout does not cut a sync scrape answering after it (requestTimeout ends with the request)', async () => {
    // No worker: the scrape waits its whole 3 s timeout, longer than the 2 s body timeout.
    const res = await timeouts.call('POST', '/v2/scrape', { body: { url: 'http://127.0.0.1:9/', timeout: 3000 } });
    expect(res.status).toBe(408);
    expect(res.body.code).toBe('SCRAPE_TIMEOUT');
  });

  it('connections past the per-client cap are answered 429 TOO_MANY_CONNECTIONS; freed slots are reused', async () => {
    const port = portOf(capped);
    const serverSide: Socket[] = [];
    const onConnection = (s: Socket) => serverSide.push(s);
    capped.api.server.on('connection', onConnection);
    const held = await Promise.all(Array.from({ length: 4 }, () => new Promise<Socket>((resolve) => {
      const s = connect({ host: '127.0.0.1', port }, () => resolve(s));
      s.on('error', () => undefined);
    })));
    const refused = await rawExchange(port, ['GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'], { end: 'respond' });
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('"code":"TOO_MANY_CONNECTIONS"');
    capped.api.server.off('connection', onConnection);
    // Free the slots and wait until the server has seen them go.
    const mine = serverSide.filter((s) => held.some((h) => h.localPort === s.remotePort));
    expect(mine).toHaveLength(4);
    const gone = mine.map((s) => new Promise((r) => (s.destroyed ? r(null) : s.once('close', r))));
    for (const s of held) s.destroy();
    await Promise.all(gone);
    expect((await capped.call('GET', '/health/live')).status).toBe(200);
  });
});
