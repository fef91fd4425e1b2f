import type { Redis } from 'ioredis';
import { hostSlotScript } from './crawl-scripts.js';
import type { RedisKeys } from './redis-keys.js';

/**
 * A request rate per target host shared by every worker: each request reserves the host's next slot
 * (`1000 / ratePerSec` ms after the previous one). A job whose slot is in the future is delayed by
 * the caller (BullMQ delayed job), so politeness never holds a worker idle.
 */
export class HostRateLimiter {
  private readonly intervalMs: number;

  /** @param ratePerSec requests per second per host; 0 disables the limit. */
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    ratePerSec: number,
  ) {
    // Whole milliseconds: Redis `PX` takes integers only.
    this.intervalMs = ratePerSec > 0 ? Math.max(1, Math.ceil(1000 / ratePerSec)) : 0;
  }

  /** Reserves the next slot of `host`; returns its start time (ms), which may be later than `now`. */
  async reserve(host: string, now = Date.now()): Promise<number> {
    if (this.intervalMs === 0) return now;
    return hostSlotScript.run(this.redis, [this.keys.hostRate(host.toLowerCase())], [now, this.intervalMs]);
  }
}
