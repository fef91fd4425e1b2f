import { spawn } from 'node:child_process';
import { TrawlError } from '@trawl/api-schema';
import { abortError } from '@trawl/scrape-engine';

/** One run of a command that reads its input from stdin. */
export interface RunProcessOptions {
  command: string;
  args: string[];
  /** The child's whole environment (nothing is inherited). */
  env: Record<string, string>;
  /** Written to stdin, which is then closed. */
  input?: Uint8Array;
  /** Kills the child (SIGKILL) when it fires; the run then rejects with `abortError(signal)`. */
  signal: AbortSignal;
  /** More stdout than this kills the child and rejects with DOCUMENT_TOO_LARGE (`limit: 'ocrOutput'`). */
  maxStdoutBytes: number;
}

/** How a run ended. */
export interface ProcessResult {
  /** Exit code, or null when the child died of a signal. */
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  stdout: Buffer;
  /** The last 16 KiB of stderr, as text. */
  stderr: string;
}

const STDERR_TAIL_BYTES = 16 * 1024;

/**
 * Runs a command to completion. Settles only once the child has exited and its pipes are closed, so a
 * caller that limits concurrent processes releases its slot when the process is really gone (a
 * SIGKILLed child closes within milliseconds). Spawn failures (ENOENT, EACCES) reject with the
 * system error, whose `code` says which.
 */
export function runProcess(opts: RunProcessOptions): Promise<ProcessResult> {
  if (opts.signal.aborted) return Promise.reject(abortError(opts.signal));
  return new Promise((resolve, reject) => {
    const child = spawn(opts.command, opts.args, { env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = Buffer.alloc(0);
    let failure: unknown;
    const kill = (reason: unknown) => {
      failure ??= reason;
      child.kill('SIGKILL');
    };
    const onAbort = () => kill(abortError(opts.signal));
    opts.signal.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > opts.maxStdoutBytes) {
        kill(new TrawlError('DOCUMENT_TOO_LARGE', `The OCR output exceeded ${opts.maxStdoutBytes} bytes.`, {
          details: { limit: 'ocrOutput', maxBytes: opts.maxStdoutBytes },
        }));
      } else if (failure === undefined) {
        stdout.push(chunk);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > STDERR_TAIL_BYTES) stderr = stderr.subarray(stderr.length - STDERR_TAIL_BYTES);
    });
    // EPIPE when the child exits before reading all its input: its exit status tells why.
    child.stdin.on('error', () => {});
    child.on('error', (err) => {
      opts.signal.removeEventListener('abort', onAbort);
      // Only spawn failures reach here without a later 'close'; after a spawn, 'close' settles.
      if (child.pid === undefined) reject(err);
      else failure ??= err;
    });
    child.on('close', (exitCode, exitSignal) => {
      opts.signal.removeEventListener('abort', onAbort);
      if (failure !== undefined) reject(failure);
      else resolve({ exitCode, exitSignal, stdout: Buffer.concat(stdout), stderr: stderr.toString('utf8') });
    });
    child.stdin.end(opts.input ?? new Uint8Array(0));
  });
}
