import { z } from 'zod';

/** The exact message clients see for a malformed job id (Firecrawl wording). */
export const INVALID_JOB_ID_MESSAGE = 'Invalid job ID format. Job ID must be a valid UUID.';

/** A job id (scrape, crawl, batch...): a UUID. */
export const jobIdSchema = z.uuid({ error: INVALID_JOB_ID_MESSAGE }).meta({ description: 'Job id (UUID).' });

/** Path params `{id}` of job routes. */
export const jobIdParamsSchema = z.strictObject({ id: jobIdSchema });
