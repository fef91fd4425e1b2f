import type { Logger } from '@trawl/observability';
import { nameUuid, type ExtractOutcome, type ExtractRecord, type ExtractStore, type WebhookSender } from '@trawl/queue';

/**
 * Ends an extract still processing and sends `extract.completed` or `extract.failed` once. The
 * webhook has an id derived from the extract: a crash between the two sends it again with the same
 * id, which BullMQ and receivers deduplicate. Returns false when the extract had already ended.
 */
export async function endExtract(
  deps: { extracts: Pick<ExtractStore, 'finish' | 'claimOnce'>; webhooks: Pick<WebhookSender, 'send'>; logger: Logger },
  extract: ExtractRecord,
  outcome: ExtractOutcome & { status: 'completed' | 'failed' },
  now: number,
): Promise<boolean> {
  if (!(await deps.extracts.finish(extract.id, outcome, { now, retentionSec: extract.retentionSec }))) return false;
  if (outcome.status === 'failed') deps.logger.warn({ extractId: extract.id, error: outcome.error }, 'extract failed');
  else deps.logger.info({ extractId: extract.id, tokensUsed: outcome.tokensUsed, creditsUsed: outcome.creditsUsed }, 'extract completed');
  if (await deps.extracts.claimOnce(extract.id, 'ended')) {
    await deps.webhooks.send(extract.teamId, extract.request.webhook, {
      type: outcome.status === 'completed' ? 'extract.completed' : 'extract.failed',
      id: extract.id,
      ...(outcome.status === 'completed' ? { data: [outcome.data ?? null] } : {}),
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    }, { zeroDataRetention: extract.zeroDataRetention, webhookId: nameUuid(`extract-webhook:${extract.id}:ended`) });
  }
  return true;
}
