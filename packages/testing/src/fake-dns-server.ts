import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { decode, encode, type Answer, type Packet } from 'dns-packet';

/**
 * What {@link FakeDnsServer} does for one name. Addresses answer their record type (`ttl` seconds,
 * default 60); a type with no addresses answers NOERROR with no records (NODATA). `silent` drops
 * the name's queries (all, or those of one type): a server that never answers. `delayMs` holds the
 * answers of a type that long; `hold` holds them until {@link FakeDnsServer.release}. `rcode` answers
 * with that error instead.
 */
export interface FakeDnsName {
  a?: string[];
  aaaa?: string[];
  ttl?: number;
  silent?: boolean | 'A' | 'AAAA';
  delayMs?: { A?: number; AAAA?: number };
  hold?: 'A' | 'AAAA';
  rcode?: 'SERVFAIL' | 'REFUSED';
}

/** One question the server received. */
export interface FakeDnsQuery {
  name: string;
  type: string;
}

/**
 * A DNS server over UDP on 127.0.0.1 (a protocol fake): answers A and AAAA questions from a table,
 * NXDOMAIN for names not in it, and records every question. Point a resolver at {@link server}.
 */
export class FakeDnsServer {
  readonly queries: FakeDnsQuery[] = [];
  private closed = false;
  /** Replies kept by `hold`, by `<name> <type>`. */
  private readonly held = new Map<string, Array<() => void>>();

  private constructor(
    private readonly socket: Socket,
    private readonly names: Map<string, FakeDnsName>,
  ) {
    socket.on('message', (message, peer) => this.answer(message, peer));
  }

  static async start(names: Record<string, FakeDnsName> = {}): Promise<FakeDnsServer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, '127.0.0.1', () => resolve());
    });
    return new FakeDnsServer(socket, new Map(Object.entries(names).map(([k, v]) => [k.toLowerCase(), v])));
  }

  /** `127.0.0.1:port`, as a resolver's server list takes it. */
  get server(): string {
    return `127.0.0.1:${this.socket.address().port}`;
  }

  /** Sets (or replaces) what the server does for `name`. */
  set(name: string, what: FakeDnsName): void {
    this.names.set(name.toLowerCase(), what);
  }

  /** Questions received for `name` (of `type` when given). */
  count(name: string, type?: string): number {
    return this.queries.filter((q) => q.name === name.toLowerCase() && (type === undefined || q.type === type)).length;
  }

  /** Sends the replies `hold` kept for `name`'s `type` questions; later ones are answered at once. */
  release(name: string, type: 'A' | 'AAAA'): void {
    const entry = this.names.get(name.toLowerCase());
    if (entry?.hold === type) this.names.set(name.toLowerCase(), { ...entry, hold: undefined });
    const key = `${name.toLowerCase()} ${type}`;
    for (const send of this.held.get(key) ?? []) send();
    this.held.delete(key);
  }

  close(): Promise<void> {
    this.closed = true;
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private answer(message: Buffer, peer: RemoteInfo): void {
    let query: Packet;
    try {
      query = decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (question === undefined) return;
    const name = question.name.toLowerCase();
    this.queries.push({ name, type: question.type });
    const entry = this.names.get(name);
    if (entry?.silent === true || entry?.silent === question.type) return;
    const answers: Answer[] = [];
    if (entry !== undefined && entry.rcode === undefined && (question.type === 'A' || question.type === 'AAAA')) {
      for (const address of (question.type === 'A' ? entry.a : entry.aaaa) ?? []) {
        answers.push({ type: question.type, class: 'IN', name: question.name, ttl: entry.ttl ?? 60, data: address });
      }
    }
    const rcode = entry === undefined ? 'NXDOMAIN' : entry.rcode ?? 'NOERROR';
    const reply = encode({
      id: query.id ?? 0,
      type: 'response',
      // QR, RD copied, RA, and the response code.
      flags: (1 << 15) | ((query.flags ?? 0) & 0x0100) | 0x0080 | RCODES[rcode],
      questions: [question],
      answers,
    });
    const delay = question.type === 'A' || question.type === 'AAAA' ? entry?.delayMs?.[question.type] ?? 0 : 0;
    const send = (): void => { if (!this.closed) this.socket.send(reply, peer.port, peer.address); };
    if (entry?.hold !== undefined && entry.hold === question.type) {
      const key = `${name} ${question.type}`;
      this.held.set(key, [...(this.held.get(key) ?? []), send]);
    } else if (delay > 0) setTimeout(send, delay).unref();
    else send();
  }
}

const RCODES = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;
