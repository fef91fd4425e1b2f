import { createHmac } from 'node:crypto';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { Logger } from '@trawl/observability';
import { isCrawlPageEvent, isCrawlTerminalEvent, parseJob, type WebhookJob } from '@trawl/queue';
import type { TargetGuard } from '@trawl/net-guard';
import { classifyWebhookResponse } from './classify-webhook-response.js';
import type { WebhookMetrics, WebhookOutcome } from './webhook-metrics.js';

/** The HTTP client of deliveries: an undici Agent whose connections pass the target guard. */
export type GuardedAgent = ReturnType<TargetGuard['createAgent']>;

/** The delivery order of a crawl's webhooks (`WebhookOrder` of `@trawl/queue`, bound to the webhook queue). */
export interface DeliveryOrder {
  /** How many page deliveries of the crawl may still POST. */
  pending(crawlId: string): Promise<number>;
  /** A page delivery job of the crawl ended (delivered or given up). */
  settled(crawlId: string, jobId: string): Promise<void>;
}

export interface WebhookProcessorDeps {
  /** Connects only to allowed addresses, checked on the address actually connected to. */
  agent: GuardedAgent;
  /** HMAC-SHA256 key of `X-Firecrawl-Signature`; unsigned without one. */
  secret?: string;
  /** Time one attempt may take, ms. */
  timeoutMs: number;
  metrics: WebhookMetrics;
  logger: Logger;
  /** Aborted when the process shuts down: in-flight deliveries stop and are retried later. */
  shutdown: AbortSignal;
  /**
   * Holds a crawl's terminal event (`completed` / `failed`) until its page deliveries have ended.
   * Without it the terminal event may arrive before page events still being delivered.
   */
  order?: DeliveryOrder;
  now?: () => number;
}

/** Re-check of a held terminal event: half the time it has waited so far, within these bounds, ms. */
const HOLD_RECHECK_MIN_MS = 10;
const HOLD_RECHECK_MAX_MS = 1000;

/** A failed attempt worth retrying; the queue's backoff strategy reads `retryAfterMs`. */
export class WebhookRetryError extends Error {
  constructor(message: string, readonly retryAfterMs?: number) {
    super(message);
    this.name = 'WebhookRetryError';
  }
}

/** What one POST ended with, before it is judged. */
type AttemptResult =
  | { kind: 'response'; status: number; retryAfter: string | undefined }
  | { kind: 'blocked'; reason: string }
  | { kind: 'error'; code: string };

const MAX_DRAINED_BYTES = 64 * 1024;

/** `X-Firecrawl-Signature` of a body: `sha256=<hex HMAC-SHA256 of the exact bytes sent>`. */
export function signWebhookBody(secret: string, body: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** The first string `code` of an error's cause chain (`ECONNREFUSED`, `SCRAPE_BLOCKED_TARGET`...). */
function errorCode(err: unknown): { code: string; details?: unknown } | undefined {
  let e: unknown = err;
  for (let depth = 0; e !== null && e !== undefined && depth < 8; depth += 1) {
    const { code, details } = e as { code?: unknown; details?: unknown };
    if (typeof code === 'string') return { code, details };
    e = e instanceof Error ? e.cause : undefined;
  }
  return undefined;
}

/**
 * Delivers one webhook job (or each delivery of a batched one, in order): POST of the JSON payload, serialised once and signed over those exact
 * bytes, through the guarded agent, redirects not followed. 2xx delivered; 408/429/5xx, connection
 * errors and timeouts retried with backoff (BullMQ); other answers and blocked targets fail at once.
 * Logs ids, type, status and attempt only: never the URL, headers or body (they may hold secrets).
 */
export class WebhookProcessor {
  private readonly now: () => number;

  constructor(private readonly deps: WebhookProcessorDeps) {
    this.now = deps.now ?? Date.now;
  }

  async process(bullJob: Job, token?: string): Promise<{ status: number }> {
    const job = parseJob('webhook', bullJob.data);
    const order = this.deps.order;
    const crawlId = job.body.id;
    if (order && token !== undefined && isCrawlTerminalEvent(job.event)) await this.holdWhilePagesPending(order, crawlId, bullJob, token);
    // A page delivery job that ends (delivered, rejected, given up) no longer holds its crawl's end;
    // one returned to the queue (a retry, a shutdown) still does.
    const settle = async () => {
      if (!order || !isCrawlPageEvent(job.event) || bullJob.id === undefined) return;
      await order.settled(crawlId, bullJob.id).catch((err: unknown) => {
        // The terminal event's check drops it once the job has ended: late, never lost.
        this.deps.logger.warn({ err, queue: 'webhook', webhookId: job.webhookId }, 'webhook page delivery not settled');
      });
    };
    try {
      const result = await this.deliverAll(job, bullJob);
      await settle();
      return result;
    } catch (err) {
      if (err instanceof UnrecoverableError) await settle();
      throw err;
    }
  }

  /**
   * A crawl's terminal event with page deliveries still pending goes back to the queue, delayed, and
   * is checked again then (no worker waits): it is POSTed after them.
   */
  private async holdWhilePagesPending(order: DeliveryOrder, crawlId: string, bullJob: Job, token: string): Promise<void> {
    const pending = await order.pending(crawlId);
    if (pending === 0) return;
    const waited = Math.max(0, this.now() - bullJob.timestamp);
    const delayMs = Math.min(HOLD_RECHECK_MAX_MS, Math.max(HOLD_RECHECK_MIN_MS, Math.round(waited / 2)));
    this.deps.logger.debug({ queue: 'webhook', webhookId: bullJob.id, pending, delayMs }, 'webhook held for the crawl\'s page deliveries');
    await bullJob.moveToDelayed(this.now() + delayMs, token);
    throw new DelayedError();
  }

  private async deliverAll(job: WebhookJob, bullJob: Job): Promise<{ status: number }> {
    // A batched job (a crawl's page events) holds more deliveries: POSTed in order, each judged as a
    // job of its own. One to retry stops the run: the job keeps it and those after it (the delivered
    // ones are dropped from its data), so none is POSTed twice after a success.
    const deliveries = [{ webhookId: job.webhookId, body: job.body }, ...(job.more ?? [])];
    let status = 0;
    let rejected: string | undefined;
    for (let i = 0; i < deliveries.length; i += 1) {
      const d = deliveries[i]!;
      const verdict = await this.deliver({ ...job, webhookId: d.webhookId, body: d.body }, bullJob);
      if (verdict.kind === 'delivered') status = verdict.status;
      else if (verdict.kind === 'rejected') rejected ??= verdict.message;
      // The job's last attempt: this delivery is given up, the ones after it still get their POST.
      else if (bullJob.attemptsMade + 1 >= (bullJob.opts.attempts ?? 1)) rejected ??= verdict.error.message;
      else {
        const [next, ...rest] = deliveries.slice(i);
        if (i > 0) {
          const { more: _more, ...single } = job;
          await bullJob.updateData({ ...single, webhookId: next!.webhookId, body: next!.body, ...(rest.length > 0 ? { more: rest } : {}) });
        }
        throw verdict.error;
      }
    }
    if (rejected !== undefined) throw new UnrecoverableError(rejected);
    return { status };
  }

  /** One delivery: delivered (its status), rejected for good (the message), or an error to retry. */
  private async deliver(job: WebhookJob, bullJob: Job): Promise<{ kind: 'delivered'; status: number } | { kind: 'rejected'; message: string } | { kind: 'retry'; error: Error }> {
    const attempt = bullJob.attemptsMade + 1;
    const lastAttempt = attempt >= (bullJob.opts.attempts ?? 1);
    const log = this.deps.logger.child({ queue: 'webhook', webhookId: job.webhookId, teamId: job.teamId, type: job.event, attempt });
    const started = this.now();
    const result = await this.post(job);
    const record = (outcome: WebhookOutcome) => {
      this.deps.metrics.deliveries.inc({ event_kind: job.event, outcome });
      this.deps.metrics.deliveryDuration.observe({ outcome }, (this.now() - started) / 1000);
    };

    if (result.kind === 'blocked') {
      record('blocked');
      log.warn({ reason: result.reason }, 'webhook target blocked');
      // Every delivery of the job goes to the same target: none can succeed.
      throw new UnrecoverableError(`webhook target blocked (${result.reason})`);
    }
    const status = result.kind === 'response' ? result.status : undefined;
    const verdict = result.kind === 'response'
      ? classifyWebhookResponse(result.status, result.retryAfter, this.now())
      : { kind: 'retry' as const };
    const reason = status === undefined ? (result.kind === 'error' ? result.code : 'unknown') : `status ${status}`;
    if (verdict.kind === 'delivered') {
      record('delivered');
      log.info({ status, durationMs: this.now() - started }, 'webhook delivered');
      return { kind: 'delivered', status: status ?? 0 };
    }
    if (verdict.kind === 'rejected') {
      record('failed');
      log.warn({ status }, 'webhook rejected by the receiver');
      return { kind: 'rejected', message: `webhook rejected: ${reason}` };
    }
    record(lastAttempt ? 'failed' : 'retry');
    if (lastAttempt) log.warn({ status, reason }, 'webhook delivery gave up');
    else log.info({ status, reason }, 'webhook attempt failed, retrying');
    return { kind: 'retry', error: new WebhookRetryError(`webhook attempt failed: ${reason}`, 'retryAfterMs' in verdict ? verdict.retryAfterMs : undefined) };
  }

  private headersFor(job: WebhookJob, url: URL, body: Buffer): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(job.headers)) headers[name.toLowerCase()] = value;
    if ((url.username !== '' || url.password !== '') && headers.authorization === undefined) {
      const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
      headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
    }
    headers['content-type'] = 'application/json';
    headers['user-agent'] ??= 'Trawl-Webhooks/1.0';
    if (this.deps.secret !== undefined) headers['x-firecrawl-signature'] = signWebhookBody(this.deps.secret, body);
    return headers;
  }

  private async post(job: WebhookJob): Promise<AttemptResult> {
    // Serialised once: the bytes signed are the bytes sent.
    const body = Buffer.from(JSON.stringify(job.body), 'utf8');
    const url = new URL(job.url);
    const timeout = AbortSignal.timeout(this.deps.timeoutMs);
    const signal = AbortSignal.any([timeout, this.deps.shutdown]);
    try {
      const res = await this.deps.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: this.headersFor(job, url, body),
        body,
        signal,
      });
      // The answer's body is not used; read a little so the connection can be reused, then drop it.
      await res.body.dump({ limit: MAX_DRAINED_BYTES, signal }).catch(() => undefined);
      const retryAfter = res.headers['retry-after'];
      return { kind: 'response', status: res.statusCode, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
    } catch (err) {
      // Shutting down: back to the queue as is, another worker delivers it.
      if (this.deps.shutdown.aborted) throw err;
      const found = errorCode(err);
      if (found?.code === 'SCRAPE_BLOCKED_TARGET') {
        const reason = (found.details as { reason?: unknown } | undefined)?.reason;
        return { kind: 'blocked', reason: typeof reason === 'string' ? reason : 'blocked' };
      }
      if (timeout.aborted) return { kind: 'error', code: 'timeout' };
      return { kind: 'error', code: found?.code ?? 'request-failed' };
    }
  }
}
