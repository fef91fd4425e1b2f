/**
 * v2 scrape options (parsed) in the field names of the v1 active-crawl record: formats as strings
 * (`screenshot@fullPage`), `parsePDF`, `jsonOptions`, `changeTrackingOptions`. Fields v1 did not have
 * are left out. The reverse of {@link v1ScrapeOptionsToV2}, for records a v1 client reads back.
 */
export function v1RecordScrapeOptions(so: Record<string, unknown>): Record<string, unknown> {
  const formats = Array.isArray(so.formats) ? (so.formats as { type: string; [k: string]: unknown }[]) : [];
  const out: Record<string, unknown> = {};
  for (const key of [
    'onlyMainContent', 'includeTags', 'excludeTags', 'maxAge', 'headers', 'waitFor', 'mobile', 'skipTlsVerification', 'timeout',
    'actions', 'location', 'removeBase64Images', 'blockAds', 'storeInCache', 'threatProtection',
  ]) {
    if (so[key] !== undefined) out[key] = so[key];
  }
  out.formats = formats.map((f) => {
    if (f.type === 'screenshot') return f.fullPage === true ? 'screenshot@fullPage' : 'screenshot';
    return f.type;
  });
  const parsers = Array.isArray(so.parsers) ? (so.parsers as { type: string }[]) : [];
  out.parsePDF = parsers.some((p) => p.type === 'pdf');
  const jsonFormat = formats.find((f) => f.type === 'json');
  if (jsonFormat) {
    out.jsonOptions = {
      ...(jsonFormat.schema !== undefined ? { schema: jsonFormat.schema } : {}),
      ...(jsonFormat.prompt !== undefined ? { prompt: jsonFormat.prompt } : {}),
      ...(jsonFormat.systemPrompt !== undefined ? { systemPrompt: jsonFormat.systemPrompt } : {}),
    };
  }
  const change = formats.find((f) => f.type === 'changeTracking');
  if (change) {
    out.changeTrackingOptions = {
      ...(change.modes !== undefined ? { modes: change.modes } : {}),
      ...(change.schema !== undefined ? { schema: change.schema } : {}),
      ...(change.prompt !== undefined ? { prompt: change.prompt } : {}),
      tag: change.tag ?? null,
    };
  }
  return out;
}
