import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RedisKeys } from './redis-keys.js';
import { defineScript } from './redis-script.js';

/**
 * Where an upload is: `pending` (URL issued, no bytes), `uploading` (a PUT is streaming),
 * `stored` (bytes in the DocumentBodyStore under `jobId`, waiting for the parse).
 */
export type ParseUploadState = 'pending' | 'uploading' | 'stored';

/** One issued upload URL (`POST /v2/parse/upload-url`). */
export interface ParseUploadRecord {
  ref: string;
  teamId: string;
  /** sha256 hex of the URL's token: the token itself is never stored. */
  tokenHash: string;
  filename: string;
  mimeType?: string;
  /** Id of the parse job, and of the DocumentBodyStore entry holding the bytes. */
  jobId: string;
  state: ParseUploadState;
  /** Bytes stored (state `stored`). */
  size?: number;
  /** When the URL stops accepting a PUT, ms since the epoch. */
  expiresAt: number;
}

/** Options of {@link ParseUploadStore.create}. */
export interface NewParseUpload {
  teamId: string;
  tokenHash: string;
  filename: string;
  mimeType?: string;
  expiresAt: number;
  /**
   * How long the record outlives `expiresAt` while nothing was uploaded, ms: a late PUT is told the URL
   * expired rather than that it never existed.
   */
  graceMs: number;
}

/**
 * MOVE: changes the state of an upload only from the expected one (a second PUT racing the first
 * loses), optionally with new fields and a new expiry.
 * KEYS[1] the record. ARGV[1] expected state, ARGV[2] new state, ARGV[3] new expiry in ms from now
 * (0 keeps it), ARGV[4..] field/value pairs to set. Returns 1 when moved, 0 otherwise (gone, other state).
 */
const moveScript = defineScript({
  name: 'trawlParseUploadMove',
  numberOfKeys: 1,
  lua: `
if redis.call('HGET', KEYS[1], 'state') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[2])
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
if tonumber(ARGV[3]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1`,
  decode: (reply) => Number(reply) === 1,
});

/**
 * CONSUME: takes a stored upload for its parse, once: the record is deleted in the same step, so a
 * second parse of the same ref finds nothing. Another team's ref reads as missing.
 * KEYS[1] the record. ARGV[1] the asking team's id.
 * Returns {'missing'}, {'state', <state>} (not uploaded yet), or {'ok', field, value, ...}.
 */
const consumeScript = defineScript({
  name: 'trawlParseUploadConsume',
  numberOfKeys: 1,
  lua: `
local team = redis.call('HGET', KEYS[1], 'teamId')
if team ~= ARGV[1] then return {'missing'} end
local state = redis.call('HGET', KEYS[1], 'state')
if state ~= 'stored' then return {'state', state} end
local fields = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
table.insert(fields, 1, 'ok')
return fields`,
  decode: (reply) => (Array.isArray(reply) ? reply.map(String) : []),
});

/** Outcome of {@link ParseUploadStore.consume}. */
export type ConsumeParseUpload =
  | { status: 'ok'; upload: ParseUploadRecord }
  | { status: 'missing' }
  | { status: 'not-uploaded'; state: ParseUploadState };

function decodeRecord(ref: string, h: Record<string, string>): ParseUploadRecord | null {
  if (!h.teamId || !h.tokenHash || !h.jobId || !h.state || !h.filename) return null;
  return {
    ref,
    teamId: h.teamId,
    tokenHash: h.tokenHash,
    filename: h.filename,
    ...(h.mimeType ? { mimeType: h.mimeType } : {}),
    jobId: h.jobId,
    state: h.state as ParseUploadState,
    ...(h.size !== undefined ? { size: Number(h.size) } : {}),
    expiresAt: Number(h.expiresAt),
  };
}

/**
 * Upload URLs of the large-file parse flow (owner of `<p>:{u:<ref>}:upload`): one hash per issued URL,
 * in its own slot. The record expires on its own (`expiresAt` + grace while nothing is uploaded, the
 * keep time after an upload), as do the bytes in the DocumentBodyStore: an upload nobody parses leaves
 * nothing behind.
 */
export class ParseUploadStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async create(input: NewParseUpload): Promise<ParseUploadRecord> {
    const record: ParseUploadRecord = {
      ref: randomUUID(),
      teamId: input.teamId,
      tokenHash: input.tokenHash,
      filename: input.filename,
      ...(input.mimeType ? { mimeType: input.mimeType } : {}),
      jobId: randomUUID(),
      state: 'pending',
      expiresAt: input.expiresAt,
    };
    const key = this.keys.parseUpload(record.ref);
    await this.redis
      .multi()
      .hset(key, {
        teamId: record.teamId, tokenHash: record.tokenHash, filename: record.filename, jobId: record.jobId, state: record.state,
        expiresAt: String(record.expiresAt), ...(record.mimeType ? { mimeType: record.mimeType } : {}),
      })
      .pexpireat(key, input.expiresAt + input.graceMs)
      .exec();
    return record;
  }

  async get(ref: string): Promise<ParseUploadRecord | null> {
    return decodeRecord(ref, await this.redis.hgetall(this.keys.parseUpload(ref)));
  }

  /** pending -> uploading; false when another PUT holds it, it was uploaded already, or it is gone. */
  async beginUpload(ref: string): Promise<boolean> {
    return moveScript.run(this.redis, [this.keys.parseUpload(ref)], ['pending', 'uploading', 0]);
  }

  /** uploading -> pending after a failed PUT (too large, interrupted): the URL may be used again. */
  async abortUpload(ref: string): Promise<void> {
    await moveScript.run(this.redis, [this.keys.parseUpload(ref)], ['uploading', 'pending', 0]);
  }

  /**
   * uploading -> stored; the record then lives `keepMs` more for its parse. `mimeType`: the PUT's
   * declared type, kept when the URL request named none. False when the record is gone.
   */
  async finishUpload(ref: string, size: number, keepMs: number, mimeType?: string): Promise<boolean> {
    const fields = mimeType ? ['mimeType', mimeType] : [];
    return moveScript.run(this.redis, [this.keys.parseUpload(ref)], ['uploading', 'stored', keepMs, 'size', size, ...fields]);
  }

  /** Takes a stored upload of this team for its parse (deleting the record: single use). */
  async consume(ref: string, teamId: string): Promise<ConsumeParseUpload> {
    const reply = await consumeScript.run(this.redis, [this.keys.parseUpload(ref)], [teamId]);
    if (reply[0] === 'state') return { status: 'not-uploaded', state: (reply[1] ?? 'pending') as ParseUploadState };
    if (reply[0] !== 'ok') return { status: 'missing' };
    const h: Record<string, string> = {};
    for (let i = 1; i + 1 < reply.length; i += 2) h[reply[i]!] = reply[i + 1]!;
    const upload = decodeRecord(ref, h);
    return upload ? { status: 'ok', upload } : { status: 'missing' };
  }
}
