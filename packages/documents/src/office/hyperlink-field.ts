/**
 * The URL of a `HYPERLINK "url"` field instruction (Word fields in DOCX and RTF). Links to bookmarks
 * inside the document (`\l "name"`) give undefined: there are no anchors to point at in the output.
 */
export function hyperlinkFieldTarget(instr: string): string | undefined {
  const m = /^\s*HYPERLINK\s+(?:"([^"]*)"|(\S+))/i.exec(instr);
  if (!m) return undefined;
  if (/^\\l$/i.test(m[2] ?? '')) return undefined;
  return m[1] ?? m[2];
}
