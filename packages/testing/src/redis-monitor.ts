import { connect, type Socket } from 'node:net';

/** One command as Redis's MONITOR reports it. */
export interface MonitoredCommand {
  /** The client's address, or `lua` for a command a script ran. */
  source: string;
  /** The command name (as sent) and its arguments. */
  args: string[];
}

/**
 * Watches every command a Redis server runs, over a plain socket.
 *
 * ioredis's `monitor()` cannot be used on a busy server: lines of other clients that arrive in the same
 * chunk as MONITOR's `+OK` are parsed before its client switches to monitoring mode, taken for replies
 * nobody asked for, and raised as "Command queue state error" with no listener yet to hear them.
 */
export class RedisMonitor {
  private readonly listeners = new Set<(command: MonitoredCommand) => void>();
  private buffered = '';

  private constructor(private readonly socket: Socket) {}

  static async start(host: string, port: number): Promise<RedisMonitor> {
    const socket = connect({ host, port });
    socket.setEncoding('utf8'); // a character split between chunks is decoded whole
    const monitor = new RedisMonitor(socket);
    await new Promise<void>((resolve, reject) => {
      let started = false;
      socket.once('error', reject);
      socket.on('data', (chunk: string) => {
        monitor.buffered += chunk;
        if (!started) {
          const end = monitor.buffered.indexOf('\r\n');
          if (end < 0) return;
          const first = monitor.buffered.slice(0, end);
          monitor.buffered = monitor.buffered.slice(end + 2);
          if (first !== '+OK') {
            reject(new Error(`MONITOR answered ${first}`));
            socket.destroy();
            return;
          }
          started = true;
          socket.off('error', reject);
          socket.on('error', () => undefined); // a server stopped under a running monitor
          resolve();
        }
        monitor.drain();
      });
      socket.write('MONITOR\r\n');
    });
    return monitor;
  }

  /** Calls `listener` with every command the server runs from now on. */
  on(listener: (command: MonitoredCommand) => void): void {
    this.listeners.add(listener);
  }

  stop(): void {
    this.listeners.clear();
    this.socket.destroy();
  }

  private drain(): void {
    for (let end = this.buffered.indexOf('\r\n'); end >= 0; end = this.buffered.indexOf('\r\n')) {
      const line = this.buffered.slice(0, end);
      this.buffered = this.buffered.slice(end + 2);
      const command = parseMonitorLine(line);
      if (command) for (const listener of this.listeners) listener(command);
    }
  }
}

/**
 * Reads one MONITOR line: `+<time> [<db> <source>] "<arg>" "<arg>" ...`, each argument quoted as Redis's
 * `sdscatrepr` writes it (`\\`, `\"`, `\n`, `\r`, `\t`, `\a`, `\b`, `\xHH`). Null for anything else.
 */
export function parseMonitorLine(line: string): MonitoredCommand | null {
  const head = /^\+\d+\.\d+ \[\d+ ([^\]]+)\] /.exec(line);
  if (!head) return null;
  const args: string[] = [];
  let i = head[0].length;
  while (i < line.length) {
    if (line[i] !== '"') return null;
    let arg = '';
    for (i++; i < line.length && line[i] !== '"'; i++) {
      if (line[i] !== '\\') {
        arg += line[i];
        continue;
      }
      const next = line[++i];
      if (next === 'x') {
        arg += String.fromCharCode(parseInt(line.slice(i + 1, i + 3), 16));
        i += 2;
      } else {
        arg += ({ n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' } as Record<string, string>)[next!] ?? next;
      }
    }
    if (line[i] !== '"') return null;
    args.push(arg);
    i += 2; // the closing quote and the space between arguments
  }
  return { source: head[1]!, args };
}
