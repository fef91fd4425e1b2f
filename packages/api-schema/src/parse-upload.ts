import { z } from 'zod';
import { parseRequestSchema } from './parse-request.js';

/**
 * `POST /v2/parse/upload-url` body: the file that will be uploaded. The name is what `metadata.sourceURL`
 * reports and what picks the reader when the bytes do not say (`.csv`, `.txt`).
 */
export const parseUploadUrlRequestSchema = z
  .strictObject({
    /** The file's name (1..255 characters). */
    filename: z.string().trim().min(1).max(255),
    /** The file's MIME type (`application/pdf`); the bytes decide when absent. */
    contentType: z.string().trim().min(1).max(256).optional(),
  })
  .meta({ id: 'ParseUploadUrlRequest' });

/** `POST /v2/parse/upload-url` answer. */
export const parseUploadUrlResponseSchema = z
  .object({
    success: z.literal(true),
    /** Absolute URL to `PUT` the bytes to, once, before `expiresAt`; it carries its own credential (no API key). */
    uploadUrl: z.string(),
    /** What `POST /v2/parse {uploadRef}` names the uploaded file by; only the team that asked may use it, once. */
    uploadRef: z.uuid(),
    /** ISO time after which `uploadUrl` accepts nothing (an upload never parsed is deleted later on its own). */
    expiresAt: z.string(),
  })
  .meta({ id: 'ParseUploadUrlResponse' });

/** `PUT` answer of an upload URL. */
export const parseUploadPutResponseSchema = z
  .object({ success: z.literal(true), uploadRef: z.uuid(), size: z.number().int().nonnegative() })
  .meta({ id: 'ParseUploadPutResponse' });

/**
 * `POST /v2/parse` with a JSON body: parse a file uploaded through `POST /v2/parse/upload-url`, with the
 * same options as the multipart `options` part.
 */
export const parseUploadRequestSchema = z
  .strictObject({
    /** The `uploadRef` of `POST /v2/parse/upload-url`, after the bytes were `PUT`. */
    uploadRef: z.uuid(),
    /** Parse options, as in the multipart `options` part. */
    options: parseRequestSchema.optional(),
  })
  .meta({ id: 'ParseUploadRequest' });

export type ParseUploadUrlRequest = z.output<typeof parseUploadUrlRequestSchema>;
export type ParseUploadRequest = z.output<typeof parseUploadRequestSchema>;
