import { z } from 'zod';

/** Team flag values: feature switches and small settings. */
const flagsSchema = z.record(z.string().min(1).max(64), z.union([z.boolean(), z.string().max(1024), z.number()]));

const teamFields = {
  /** Display name, 1..100 chars. */
  name: z.string().trim().min(1).max(100),
  /** Jobs the team may run at once, 1..1000. Default 2. */
  concurrency: z.number().int().min(1).max(1000),
  /** Requests per minute, 1..1000000. Default 100. */
  ratePerMinute: z.number().int().min(1).max(1_000_000),
  /** Credits per billing period, >= 0; null = unlimited. Default null. */
  credits: z.number().int().min(0).nullable(),
  /** Feature flags: name -> boolean | string | number. Default {}. */
  flags: flagsSchema,
  /** True: the team's keys get 403 `TEAM_DISABLED` and its waiting jobs do not start. Default false. */
  disabled: z.boolean(),
};

/** `POST /admin/teams` body. */
export const createTeamRequestSchema = z
  .strictObject({
    name: teamFields.name,
    concurrency: teamFields.concurrency.default(2),
    ratePerMinute: teamFields.ratePerMinute.default(100),
    credits: teamFields.credits.default(null),
    flags: teamFields.flags.default(() => ({})),
    disabled: teamFields.disabled.default(false),
  })
  .meta({ id: 'CreateTeamRequest' });

/** Create-team body as sent. */
export type CreateTeamRequestInput = z.input<typeof createTeamRequestSchema>;
/** Create-team body with defaults. */
export type CreateTeamRequest = z.output<typeof createTeamRequestSchema>;

/** `PATCH /admin/teams/{id}` body: any team field, at least one. `flags` replaces the whole map. */
export const updateTeamRequestSchema = z
  .strictObject({
    name: teamFields.name.optional(),
    concurrency: teamFields.concurrency.optional(),
    ratePerMinute: teamFields.ratePerMinute.optional(),
    credits: teamFields.credits.optional(),
    flags: teamFields.flags.optional(),
    disabled: teamFields.disabled.optional(),
  })
  .refine((body) => Object.values(body).some((v) => v !== undefined), {
    error: 'At least one of name, concurrency, ratePerMinute, credits, flags, disabled is required',
  })
  .meta({ id: 'UpdateTeamRequest' });

/** Update-team body. */
export type UpdateTeamRequest = z.output<typeof updateTeamRequestSchema>;

/** A team as the admin API returns it. `createdAt` is ISO 8601. */
export const teamSchema = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    concurrency: z.number().int(),
    ratePerMinute: z.number().int(),
    credits: z.number().int().nullable(),
    creditsUsed: z.number().int().min(0),
    flags: flagsSchema,
    disabled: z.boolean(),
    createdAt: z.string(),
  })
  .meta({ id: 'Team' });

/** A team record. */
export type Team = z.output<typeof teamSchema>;

/** Path params of `/admin/teams/{id}` routes: a server-made team id. */
export const teamIdParamsSchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'Invalid team id' }),
});

/**
 * Path params of `DELETE /admin/keys/{key}`: the plain API key (hashed to find the record) or the
 * `keyId` that key listings show.
 */
export const apiKeyParamsSchema = z.strictObject({
  key: z.string().min(8).max(256),
});

/** `GET /admin/teams/{id}`, `POST`, `PATCH` response: the team's fields at the top level, with `id`. */
export const teamResponseSchema = teamSchema
  .extend({ success: z.literal(true) })
  .meta({ id: 'TeamResponse' });

/** `GET /admin/teams` response. */
export const teamListResponseSchema = z
  .strictObject({ success: z.literal(true), teams: z.array(teamSchema) })
  .meta({ id: 'TeamListResponse' });

/** `POST /admin/teams/{id}/keys` body: an optional label (1..100 chars). */
export const createApiKeyRequestSchema = z
  .strictObject({ name: z.string().trim().min(1).max(100).optional() })
  .meta({ id: 'CreateApiKeyRequest' });

/** Create-key body. */
export type CreateApiKeyRequest = z.output<typeof createApiKeyRequestSchema>;

/** `POST /admin/teams/{id}/keys` response: the secret `key` is shown only here, once. */
export const createApiKeyResponseSchema = z
  .strictObject({
    success: z.literal(true),
    key: z.string(),
    keyId: z.string(),
    teamId: z.string(),
  })
  .meta({ id: 'CreateApiKeyResponse' });

/** Create-key response. */
export type CreateApiKeyResponse = z.output<typeof createApiKeyResponseSchema>;

/** An API key without its secret. Times are ISO 8601. */
export const apiKeyInfoSchema = z
  .strictObject({
    keyId: z.string(),
    teamId: z.string(),
    name: z.string().nullable(),
    /** The first characters of the key, to recognise it. */
    prefix: z.string(),
    createdAt: z.string(),
  })
  .meta({ id: 'ApiKeyInfo' });

/** An API key listing entry. */
export type ApiKeyInfo = z.output<typeof apiKeyInfoSchema>;

/** `GET /admin/teams/{id}/keys` response. */
export const apiKeyListResponseSchema = z
  .strictObject({ success: z.literal(true), keys: z.array(apiKeyInfoSchema) })
  .meta({ id: 'ApiKeyListResponse' });

/** Body of admin deletions (`DELETE /admin/keys/{key}`). */
export const successResponseSchema = z.strictObject({ success: z.literal(true) }).meta({ id: 'SuccessResponse' });
