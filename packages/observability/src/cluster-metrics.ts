import { Gauge, type Registry } from 'prom-client';

/** What the cluster gauges show; read from Redis (see `ClusterStats` in @trawl/queue). */
export interface ClusterSnapshot {
  queues: Array<{ queue: string; counts: Record<string, number>; ready: number; oldestReadySec: number }>;
  slots: { active: number; backlogged: number };
  /** Per Redis (`queue`, and `cache` when the cache has its own): null when it did not answer. */
  redis: Record<string, { usedBytes: number; maxBytes: number } | null>;
}

const readers = new WeakMap<Registry, { read: () => Promise<ClusterSnapshot> }>();

/**
 * Gauges of cluster-wide state, read once per scrape (concurrent collectors share one read, kept
 * `cacheMs`). Every process exports the same values: aggregate with `max by`, not `sum`. When the
 * read fails, the queue and slot series are dropped (no stale autoscaling signal) and
 * `trawl_redis_up{redis="queue"}` is 0.
 */
export function registerClusterMetrics(registry: Registry, read: () => Promise<ClusterSnapshot>, opts: { cacheMs?: number; timeoutMs?: number } = {}): void {
  // One process running the API and a worker (embedded mode) registers twice: the last reader wins.
  const existing = readers.get(registry);
  if (existing) {
    existing.read = read;
    return;
  }
  const source = { read };
  readers.set(registry, source);
  const cacheMs = opts.cacheMs ?? 1000;
  const timeoutMs = opts.timeoutMs ?? 2000;
  let last: { at: number; value: Promise<ClusterSnapshot | null> } | undefined;
  const snapshot = (): Promise<ClusterSnapshot | null> => {
    const now = Date.now();
    if (last && now - last.at < cacheMs) return last.value;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), timeoutMs);
    });
    const value = Promise.race([source.read().catch(() => null), timeout]).finally(() => clearTimeout(timer));
    last = { at: now, value };
    return value;
  };
  const gauge = (name: string, help: string, labelNames: string[], fill: (g: Gauge, s: ClusterSnapshot) => void, onFailure?: (g: Gauge) => void) =>
    new Gauge({
      name, help, labelNames, registers: [registry],
      async collect() {
        const s = await snapshot();
        this.reset();
        if (s) fill(this, s);
        else onFailure?.(this);
      },
    });
  gauge('trawl_queue_jobs', 'BullMQ jobs by queue and state (cluster-wide; identical in every process)', ['queue', 'state'], (g, s) => {
    for (const q of s.queues) for (const [state, n] of Object.entries(q.counts)) g.set({ queue: q.queue, state }, n);
  });
  gauge('trawl_queue_ready_jobs', 'Jobs ready to run that no worker has taken: waiting, prioritized and due delayed jobs (the autoscaling signal)', ['queue'], (g, s) => {
    for (const q of s.queues) g.set({ queue: q.queue }, q.ready);
  });
  gauge('trawl_queue_oldest_ready_seconds', 'Age of the oldest ready job of each queue since it became ready (0 when none)', ['queue'], (g, s) => {
    for (const q of s.queues) g.set({ queue: q.queue }, q.oldestReadySec);
  });
  gauge('trawl_concurrency_slots', 'Team concurrency slots summed over all teams: active (jobs admitted) and backlogged (jobs waiting for a slot)', ['state'], (g, s) => {
    g.set({ state: 'active' }, s.slots.active);
    g.set({ state: 'backlogged' }, s.slots.backlogged);
  });
  gauge('trawl_redis_up', 'Whether the Redis answered the last metrics read (1) or not (0)', ['redis'], (g, s) => {
    for (const [redis, m] of Object.entries(s.redis)) g.set({ redis }, m ? 1 : 0);
  }, (g) => g.set({ redis: 'queue' }, 0));
  gauge('trawl_redis_memory_used_bytes', 'Redis used_memory', ['redis'], (g, s) => {
    for (const [redis, m] of Object.entries(s.redis)) if (m) g.set({ redis }, m.usedBytes);
  });
  gauge('trawl_redis_memory_max_bytes', 'Redis maxmemory (0: no limit)', ['redis'], (g, s) => {
    for (const [redis, m] of Object.entries(s.redis)) if (m) g.set({ redis }, m.maxBytes);
  });
}
