import { z } from 'zod';
import { ERROR_CODE_LIST, type ErrorCode } from './error-codes.js';

/** Every failure body: `{success:false, error, code?, details?}`. `details` of a 400 holds the validation issues. */
export const errorResponseSchema = z
  .strictObject({
    success: z.literal(false),
    /** Human-readable message. */
    error: z.string(),
    /** Documented error code; see ERROR_CODES. */
    code: z.enum(ERROR_CODE_LIST as [ErrorCode, ...ErrorCode[]]).optional(),
    /** Extra data: validation issues, `option`, `errorId`... */
    details: z.unknown().optional(),
  })
  .meta({ id: 'ErrorResponse' });

/** A failure body. */
export type ErrorResponse = z.output<typeof errorResponseSchema>;
