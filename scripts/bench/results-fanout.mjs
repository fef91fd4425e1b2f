// What other processes pay for the outcomes of sync scrapes they do not wait for: the cluster (as
// scrape.bench.mjs's `queued` row: every scrape through BullMQ, 8 in flight) plus --subscribers idle
// result waiters in a child process, each subscribed as a gateway or worker pod's waiter is (the
// shared results channel and a channel of its own). Prints Redis's CPU and the idle waiters' CPU per
// scrape. Outcomes announced on the submitting waiter's channel (a job's `replyTo`) reach none of them;
// outcomes on the shared channel reach all of them. Not part of `npm run bench`.
//   node scripts/bench/results-fanout.mjs [--subscribers 10] [--requests 1000]
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT, arg, startArticleSite, startBenchCluster } from './bench-cluster.mjs';

const { Redis } = await import(join(ROOT, 'packages/queue/node_modules/ioredis/built/index.js'));

if (process.argv[2] === 'child') {
  // The idle waiters: they read each announcement's job id, as ResultWaiter does, and wait for none.
  for (let i = 0; i < Number(process.env.SUBSCRIBERS); i++) {
    const sub = new Redis(process.env.REDIS_URL);
    sub.on('message', (_channel, message) => message.slice(0, Math.max(0, message.indexOf('\n'))));
    await sub.subscribe(`${process.env.PREFIX}:results`, `${process.env.PREFIX}:results:to:idle-${i}`);
  }
  process.send('ready');
  process.on('message', () => {
    const cpu = process.cpuUsage();
    process.send((cpu.user + cpu.system) / 1000);
  });
} else {
  const SUBSCRIBERS = arg('subscribers', 10);
  const REQUESTS = arg('requests', 1000);
  const site = await startArticleSite();
  const { origin } = site;
  const cluster = await startBenchCluster();
  cluster.gatewayRunsLocally(false);
  const redis = new Redis(cluster.redisUrl);
  const redisCpuMs = async () => {
    const info = await redis.info('cpu');
    const num = (name) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
    return (num('used_cpu_user') + num('used_cpu_sys')) * 1000;
  };
  const child = fork(fileURLToPath(import.meta.url), ['child'], {
    env: { ...process.env, REDIS_URL: cluster.redisUrl, SUBSCRIBERS: String(SUBSCRIBERS), PREFIX: process.env.TRAWL_REDIS_PREFIX ?? 'trawl' },
  });
  await new Promise((r) => child.once('message', r));
  const childCpuMs = () => new Promise((r) => {
    child.once('message', r);
    child.send('cpu');
  });
  let seq = 0;
  const one = async () => {
    const res = await fetch(`${cluster.url}/v2/scrape`, {
      method: 'POST', body: JSON.stringify({ url: `${origin}/${seq++}`, formats: ['markdown'], maxAge: 0 }),
      headers: { authorization: `Bearer ${cluster.key}`, 'content-type': 'application/json' },
    });
    const json = await res.json();
    if (!json.success) throw new Error(JSON.stringify(json));
  };
  const run = async (n) => {
    let next = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next++ < n) await one();
    }));
  };
  await run(400);
  const [r0, s0] = [await redisCpuMs(), await childCpuMs()];
  await run(REQUESTS);
  const [r1, s1] = [await redisCpuMs(), await childCpuMs()];
  console.log(`${SUBSCRIBERS} idle waiters, ${REQUESTS} queued sync scrapes, 8 in flight: Redis ${((r1 - r0) / REQUESTS).toFixed(3)} ms CPU per scrape, the idle waiters ${((s1 - s0) / REQUESTS).toFixed(3)} ms together`);
  child.kill();
  redis.disconnect();
  await cluster.close();
  site.close();
  process.exit(0);
}
