import type { Redis } from 'ioredis';

/** One argument of a script call: ioredis sends numbers as their decimal text. */
export type ScriptArg = string | number | Buffer;

/** A Lua script declared once: its name, how many of its arguments are keys, and its reply's decoder. */
export interface RedisScript<R> {
  readonly name: string;
  readonly numberOfKeys: number;
  /**
   * Runs the script (EVALSHA, EVAL the first time a connection meets it) and decodes its reply.
   * `keys` must be exactly `numberOfKeys` long: on Cluster they route the call.
   */
  run(redis: Redis, keys: readonly string[], args: readonly ScriptArg[]): Promise<R>;
}

/** Options of {@link defineScript}. */
export interface ScriptDefinition<R> {
  /** Command name registered with ioredis `defineCommand`; unique in the process (`trawl` prefix). */
  name: string;
  numberOfKeys: number;
  /** The Lua body; its header comment lists KEYS and ARGV. */
  lua: string;
  /** Turns the raw reply into the caller's type. */
  decode: (reply: unknown) => R;
  /** Replies come as Buffers instead of strings (binary values). Default false. */
  buffers?: boolean;
}

type ScriptCommand = (...args: ScriptArg[]) => Promise<unknown>;

/**
 * Declares a Lua script once. Each connection registers it on first use (ioredis `defineCommand`,
 * which sends EVALSHA and falls back to EVAL after a SCRIPT FLUSH or on a fresh server).
 */
export function defineScript<R>(def: ScriptDefinition<R>): RedisScript<R> {
  const command = def.buffers ? `${def.name}Buffer` : def.name;
  return {
    name: def.name,
    numberOfKeys: def.numberOfKeys,
    async run(redis, keys, args) {
      if (keys.length !== def.numberOfKeys) throw new Error(`script ${def.name}: ${def.numberOfKeys} keys expected, got ${keys.length}`);
      const commands = redis as unknown as Record<string, ScriptCommand | undefined>; // defineCommand adds methods ioredis' type cannot list
      if (typeof commands[command] !== 'function') redis.defineCommand(def.name, { numberOfKeys: def.numberOfKeys, lua: def.lua });
      const call = commands[command] as ScriptCommand;
      return def.decode(await call.call(redis, ...keys, ...args));
    },
  };
}

/**
 * RELEASE_LOCK: deletes a lock only while it still holds its owner's token (compare and delete), so
 * a holder whose lock expired and was taken by another never frees the other's lock.
 * KEYS[1] the lock; ARGV[1] the owner's token. Returns 1 when deleted, 0 otherwise.
 */
export const releaseLockScript = defineScript({
  name: 'trawlReleaseLock',
  numberOfKeys: 1,
  lua: "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0",
  decode: (reply) => Number(reply) === 1,
});
