// The client side of the scrape benchmarks, in a process of its own (as a user's client is): sync
// scrapes sent with fetch, `parallel` at a time, timed from send to parsed answer. In the cluster's
// process, the client would share the event loop with the server: work the server does after writing
// an answer (its cache writes, the slot's release) would delay the client's reading of it, which no
// real client sees; its CPU would count as the cluster's. Not a benchmark itself (no `.bench.mjs` suffix).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Runs `bodies` against `url` (POST, JSON) with `parallel` in flight: each request's ms, and the whole run's. */
async function run({ url, key, bodies, parallel }) {
  const times = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const s = performance.now();
      const res = await fetch(url, { method: 'POST', body, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
      const json = await res.json();
      if (!json.success) throw new Error(JSON.stringify(json));
      times.push(performance.now() - s);
    }
  }));
  return { times, wallMs: performance.now() - t0 };
}

if (process.argv[2] === '--child') {
  process.on('message', async ({ id, job }) => {
    try {
      process.send({ id, result: await run(job) });
    } catch (err) {
      process.send({ id, error: String(err?.stack ?? err) });
    }
  });
}

/**
 * Starts the client process. `run({ url, key, bodies, parallel })` resolves to `{ times, wallMs }`
 * (rejects when an answer was not a success); `close()` ends the process.
 */
export function startScrapeClient() {
  // No inherited flags (--cpu-prof, --inspect): the client is not what a profile of the bench is for.
  const child = fork(fileURLToPath(import.meta.url), ['--child'], { stdio: 'inherit', execArgv: [] });
  const waiting = new Map();
  let seq = 0;
  child.on('message', ({ id, result, error }) => {
    const w = waiting.get(id);
    waiting.delete(id);
    if (error) w.reject(new Error(error));
    else w.resolve(result);
  });
  child.on('exit', (code) => {
    for (const w of waiting.values()) w.reject(new Error(`the scrape client exited (${code})`));
    waiting.clear();
  });
  return {
    pid: child.pid,
    run(job) {
      const id = seq++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child.send({ id, job });
      });
    },
    close() {
      child.kill();
    },
  };
}
