import type { Document } from '../document.js';
import type { V1JsonKeys } from './v1-scrape-options.js';

/** One line of a v1 `changeTracking.diff.json` chunk (the shape of the `parse-diff` package). */
export interface V1DiffChange {
  type: 'add' | 'del' | 'normal';
  normal?: boolean;
  ln?: number;
  ln1?: number;
  ln2?: number;
  content: string;
}

/** v1 `changeTracking.diff`: the git diff text and its parsed form. */
export interface V1Diff {
  text: string;
  json: { files: Array<{ from: string | null; to: string | null; chunks: Array<{ content: string; changes: V1DiffChange[] }> }> };
}

const FILE_NAME = /^(?:---|\+\+\+) (?:[ab]\/)?(.*)$/;
const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** Parses a unified diff into the file/chunk/change lists v1 clients read (`diff.json.files`). */
export function parseUnifiedDiff(text: string): V1Diff['json'] {
  const files: V1Diff['json']['files'] = [];
  let file: V1Diff['json']['files'][number] | undefined;
  let chunk: { content: string; changes: V1DiffChange[] } | undefined;
  let del = 0;
  let add = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('--- ')) {
      file = { from: FILE_NAME.exec(line)?.[1] ?? null, to: null, chunks: [] };
      files.push(file);
      chunk = undefined;
      continue;
    }
    if (line.startsWith('+++ ') && file !== undefined && chunk === undefined) {
      file.to = FILE_NAME.exec(line)?.[1] ?? null;
      continue;
    }
    const hunk = HUNK.exec(line);
    if (hunk) {
      if (file === undefined) {
        file = { from: null, to: null, chunks: [] };
        files.push(file);
      }
      del = Number(hunk[1]);
      add = Number(hunk[2]);
      chunk = { content: line, changes: [] };
      file.chunks.push(chunk);
      continue;
    }
    if (chunk === undefined || line.length === 0 || line.startsWith('\\')) continue;
    if (line.startsWith('+')) chunk.changes.push({ type: 'add', ln: add++, content: line });
    else if (line.startsWith('-')) chunk.changes.push({ type: 'del', ln: del++, content: line });
    else chunk.changes.push({ type: 'normal', normal: true, ln1: del++, ln2: add++, content: line });
  }
  return { files };
}

/** A v2 document as the API layer holds it (stored results are plain JSON objects). */
type V2DocumentLike = Readonly<Record<string, unknown>> | Document;

/**
 * A v2 document as v1 clients read it: the LLM extraction under `json` and/or `extract` (see
 * {@link V1JsonKeys}), `metadata.proxyUsed` "stealth" for v2's "enhanced", and the change-tracking
 * diff as `{text, json}`. The screenshot stays a URL, as in v1. Fields it does not know pass unchanged.
 */
export function v1Document(doc: V2DocumentLike, opts: { jsonKeys?: V1JsonKeys } = {}): Record<string, unknown> {
  const { json, changeTracking, metadata, ...rest } = doc as Readonly<Record<string, unknown>>;
  const out: Record<string, unknown> = { ...rest };
  if (isRecord(metadata)) {
    const { proxyUsed, ...meta } = metadata;
    out.metadata = { ...meta, ...(proxyUsed !== undefined ? { proxyUsed: proxyUsed === 'enhanced' ? 'stealth' : proxyUsed } : {}) };
  } else if (metadata !== undefined) out.metadata = metadata;
  if (json !== undefined) {
    for (const key of opts.jsonKeys ?? ['json', 'extract']) out[key] = json;
  }
  if (isRecord(changeTracking)) {
    const { diff, ...ct } = changeTracking;
    out.changeTracking = { ...ct, ...(typeof diff === 'string' ? { diff: { text: diff, json: parseUnifiedDiff(diff) } } : diff !== undefined ? { diff } : {}) };
  } else if (changeTracking !== undefined) out.changeTracking = changeTracking;
  return out;
}

/** v1 map answers list URLs; v2 map links are `{url, title?, description?}`. */
export function v1MapLinks(links: readonly unknown[]): string[] {
  return links.flatMap((l) => (typeof l === 'string' ? [l] : isRecord(l) && typeof l.url === 'string' ? [l.url] : []));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
