import { z } from 'zod';

// Temporary: replaced by the webhook branch's schema at merge.
export const webhookConfigSchema = z
  .union([z.string().url(), z.strictObject({ url: z.string().url(), headers: z.record(z.string(), z.string()).optional(), metadata: z.record(z.string(), z.unknown()).optional(), events: z.array(z.string()).optional() })])
  .transform((v) => (typeof v === 'string' ? { url: v } : v));
export type WebhookConfig = z.output<typeof webhookConfigSchema>;
