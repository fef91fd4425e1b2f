import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** One request or tunnel the proxy was asked for. */
export interface ForwardProxyRequest {
  /** `CONNECT` for a tunnel, otherwise the method of an absolute-form request. */
  method: string;
  /** `host:port` of a tunnel, or the absolute URL of a request. */
  target: string;
  /** Whether the request carried the required credentials (always true without `credentials`). */
  authorized: boolean;
}

/** Options of {@link ForwardProxyFixture}. */
export interface ForwardProxyOptions {
  /** Basic credentials the proxy requires; requests without them get 407. Default none required. */
  credentials?: { username: string; password: string };
}

const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade',
]);

/**
 * A real, minimal HTTP forward proxy on 127.0.0.1 for tests: CONNECT tunnels and absolute-form
 * requests, optional basic credentials (407 without them). Records every request it was asked for, so
 * a test proves the traffic went through it. Set `failWith` to answer every request with that status
 * (e.g. 502) instead of forwarding.
 */
export class ForwardProxyFixture {
  readonly requests: ForwardProxyRequest[] = [];
  /** When set, every request and tunnel is answered with this status and not forwarded. */
  failWith: number | undefined;
  port = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Duplex>();
  private readonly expectedAuth: string | undefined;

  constructor(private readonly options: ForwardProxyOptions = {}) {
    const c = options.credentials;
    this.expectedAuth = c === undefined ? undefined : `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
  }

  /** `http://127.0.0.1:<port>`, without credentials. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The proxy URL with the required credentials (percent-encoded), or {@link url} when none are required. */
  get urlWithCredentials(): string {
    const c = this.options.credentials;
    if (c === undefined) return this.url;
    return `http://${encodeURIComponent(c.username)}:${encodeURIComponent(c.password)}@127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => this.forward(req, res));
    server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.tunnel(req, socket, head));
    server.on('connection', (socket: Socket) => this.track(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  /** Stops listening and destroys every client and upstream socket, tunnels included. */
  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    server.close();
    await once(server, 'close');
  }

  private track(socket: Duplex): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  }

  /** Records the request; answers 407 or `failWith` itself and returns false when it must not be forwarded. */
  private admit(req: IncomingMessage, reply: (status: number, headers: Record<string, string>) => void): boolean {
    const authorized = this.expectedAuth === undefined || req.headers['proxy-authorization'] === this.expectedAuth;
    this.requests.push({ method: req.method ?? '', target: req.url ?? '', authorized });
    if (!authorized) {
      reply(407, { 'proxy-authenticate': 'Basic realm="fixture"' });
      return false;
    }
    if (this.failWith !== undefined) {
      reply(this.failWith, {});
      return false;
    }
    return true;
  }

  private forward(req: IncomingMessage, res: ServerResponse): void {
    const ok = this.admit(req, (status, headers) => res.writeHead(status, headers).end());
    if (!ok) return;
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute-form request expected');
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    }
    const upstream = httpRequest(target, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('socket', (socket) => this.track(socket));
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  }

  private tunnel(req: IncomingMessage, client: Duplex, head: Buffer): void {
    this.track(client);
    const ok = this.admit(req, (status, headers) => {
      const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
      client.end(`HTTP/1.1 ${status} Refused\r\n${lines}content-length: 0\r\n\r\n`);
    });
    if (!ok) return;
    const [host, port] = splitHostPort(req.url ?? '');
    const upstream = connect({ host, port, allowHalfOpen: true });
    this.track(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.once('error', () => {
      if (!connected) client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
    });
    // A clean close ends the other side (flushing what it still has to write); an error destroys it.
    client.once('close', (hadError: boolean) => (hadError ? upstream.destroy() : upstream.end()));
    upstream.once('close', (hadError: boolean) => {
      if (!connected) return;
      if (hadError) client.destroy();
      else client.end();
    });
  }
}

function splitHostPort(authority: string): [string, number] {
  const at = authority.lastIndexOf(':');
  const host = authority.slice(0, at).replace(/^\[|\]$/g, '');
  return [host, Number(authority.slice(at + 1))];
}
