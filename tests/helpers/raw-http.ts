import { connect } from 'node:net';

/** What a raw exchange produced: the bytes the server sent before the connection ended. */
export interface RawExchange {
  /** Status of the first response line, or 0 when the server sent nothing. */
  status: number;
  text: string;
}

/**
 * Writes `parts` to a fresh TCP connection to `port` (each part as its own write, so the server sees a
 * request arrive in pieces), then either half-closes and reads until the server closes
 * (`end: 'read'`), or destroys the socket at once (`end: 'destroy'`: an aborted upload). Resolves with
 * what was read; never rejects on a reset (a cut connection is a result, not a test failure).
 */
export function rawExchange(port: number, parts: ReadonlyArray<string | Buffer>, opts: { end: 'read' | 'destroy' | 'respond' | 'wait' }): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const done = () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : 0, text });
    };
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // `respond`: the socket stays open (a half-close makes Node's server drop the request); one
      // complete response is enough.
      if (opts.end === 'respond' && responseComplete(Buffer.concat(chunks).toString('latin1'))) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', done);
    socket.on('connect', () => {
      void (async () => {
        for (const p of parts) {
          if (socket.destroyed) return;
          await new Promise<void>((r) => socket.write(p, () => r()));
        }
        if (opts.end === 'destroy') socket.destroy();
        else if (opts.end === 'read') socket.end();
      })();
    });
  });
}

/** A whole response with a Content-Length body has arrived (or the server said it will close). */
function responseComplete(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end));
  return length ? Buffer.byteLength(text.slice(end + 4), 'latin1') >= Number(length[1]) : false;
}

/** A chunked-encoding chunk of `data`. */
export function chunk(data: string | Buffer): string {
  const b = typeof data === 'string' ? Buffer.from(data) : data;
  return `${b.length.toString(16)}\r\n${b.toString('latin1')}\r\n`;
}
