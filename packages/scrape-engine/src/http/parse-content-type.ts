/** A Content-Type header split into its MIME type and charset. */
export interface ParsedContentType {
  /** Lower-cased type/subtype, or undefined when missing or malformed. */
  mimeType?: string;
  /** Raw `charset` parameter, unquoted. */
  charset?: string;
}

/** Parses a Content-Type value such as `text/html; charset="Shift_JIS"`. */
export function parseContentType(value: string | undefined): ParsedContentType {
  if (value === undefined) return {};
  const [type = '', ...params] = value.split(';');
  const mime = type.trim().toLowerCase();
  const out: ParsedContentType = {};
  if (/^[\w.+-]+\/[\w.+-]+$/.test(mime)) out.mimeType = mime;
  for (const param of params) {
    const m = /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(param);
    if (m?.[1] !== undefined) out.charset = m[1];
  }
  return out;
}
