#!/usr/bin/env node
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { adminRequest } from './admin-client.js';
import { numberOption, parseArgs } from './args.js';
import { stopOnSignals } from '@trawl/observability';
import { startEmbedded } from './embedded.js';

const USAGE = `trawl <command>

  start                          all-in-one: embedded Redis, API and workers, prints an API key
  api                            the API gateway only (production; needs REDIS_URL)
  worker [--role http|browser|documents]   a worker only (production; needs REDIS_URL; roles comma-separated)
  teams create --name N [--concurrency C] [--rate R] [--credits X|unlimited]
  teams list
  teams update ID [--name N] [--concurrency C] [--rate R] [--credits X|unlimited] [--disabled true|false]
  keys create --team ID [--name LABEL]
  keys list --team ID
  keys delete KEY|KEY_ID           revoke a key, given in plain form or by the keyId of \`keys list\`
  scrape URL [--formats markdown,html,links]   one scrape through the API (needs TRAWL_API_KEY)

Admin and scrape commands talk to TRAWL_API_URL (default http://127.0.0.1:3002) with
TRAWL_ADMIN_KEY / TRAWL_API_KEY (in embedded mode both are in .data/).`;

const env = process.env;
const dataDir = resolve(env.TRAWL_DATA_DIR ?? '.data');
const fromData = (file: string) => (existsSync(join(dataDir, file)) ? readFileSync(join(dataDir, file), 'utf8').trim() : undefined);
const baseUrl = env.TRAWL_API_URL ?? `http://127.0.0.1:${env.PORT ?? 3002}`;
const admin = (method: string, path: string, body?: unknown) =>
  adminRequest({ baseUrl, adminKey: env.TRAWL_ADMIN_KEY ?? fromData('admin-key'), method, path, body });

function teamFields(o: Record<string, string | true>) {
  const fields: Record<string, unknown> = {};
  if (typeof o.name === 'string') fields.name = o.name;
  const c = numberOption(o.concurrency);
  if (c !== undefined) fields.concurrency = c;
  const r = numberOption(o.rate);
  if (r !== undefined) fields.ratePerMinute = r;
  if (o.credits !== undefined) fields.credits = numberOption(o.credits);
  // A bare `--disabled` means true; anything but true/false is left to the API to refuse.
  if (o.disabled !== undefined) fields.disabled = o.disabled === true || o.disabled === 'true' ? true : o.disabled === 'false' ? false : o.disabled;
  return fields;
}

async function runEmbedded(): Promise<void> {
  const handle = await startEmbedded(env);
  const url = handle.api.url;
  process.stdout.write(`
Trawl is running (API + workers${handle.redis ? ` + embedded Redis on port ${handle.redis.port}` : ''}).

  Base URL:  ${url}
  API key:   ${handle.apiKey}
  Admin key: ${handle.adminKey}   (also in ${dataDir})

  curl -s -X POST ${url}/v2/scrape \\
    -H 'Authorization: Bearer ${handle.apiKey}' -H 'Content-Type: application/json' \\
    -d '{"url": "https://example.com", "formats": ["markdown"]}'

Press Ctrl-C to stop.
`);
  const stop = stopOnSignals(() => handle.stop(), handle.logger);
  // A closed terminal stops everything too (Node's default would leave the detached Redis behind).
  process.on('SIGHUP', () => stop('SIGHUP'));
  // Started by `npm start`: the launcher holds an IPC channel; when it closes, the launcher is gone.
  if (process.connected) process.once('disconnect', () => stop('launcher-exited'));
}

async function main(argv: string[]): Promise<void> {
  const { positional, options } = parseArgs(argv);
  const [cmd, sub, arg] = positional;
  const print = (v: unknown): void => {
    process.stdout.write(JSON.stringify(v, null, 2) + '\n');
  };
  switch (cmd) {
    case 'start':
      return runEmbedded();
    case 'api':
      await import('@trawl/api/main');
      return;
    case 'worker':
      if (typeof options.role === 'string') process.env.TRAWL_WORKER_ROLES = options.role;
      await import('@trawl/worker/main');
      return;
    case 'teams':
      if (sub === 'create') return print(await admin('POST', '/admin/teams', teamFields(options)));
      if (sub === 'list') return print(await admin('GET', '/admin/teams'));
      if (sub === 'update' && arg) return print(await admin('PATCH', `/admin/teams/${encodeURIComponent(arg)}`, teamFields(options)));
      break;
    case 'keys':
      if (sub === 'create' && typeof options.team === 'string') {
        return print(await admin('POST', `/admin/teams/${encodeURIComponent(options.team)}/keys`, typeof options.name === 'string' ? { name: options.name } : {}));
      }
      if (sub === 'list' && typeof options.team === 'string') return print(await admin('GET', `/admin/teams/${encodeURIComponent(options.team)}/keys`));
      if (sub === 'delete' && arg) return print(await admin('DELETE', `/admin/keys/${encodeURIComponent(arg)}`));
      break;
    case 'scrape': {
      if (!sub) break;
      const key = env.TRAWL_API_KEY ?? fromData('api-key');
      const formats = typeof options.formats === 'string' ? options.formats.split(',') : ['markdown'];
      const res = await fetch(new URL('/v2/scrape', baseUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${key ?? ''}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: sub, formats }),
      });
      print(await res.json());
      if (!res.ok) process.exitCode = 1;
      return;
    }
    default:
      break;
  }
  process.stderr.write(USAGE + '\n');
  process.exitCode = cmd === undefined || cmd === 'help' || options.help ? 0 : 2;
}

await main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`trawl: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
