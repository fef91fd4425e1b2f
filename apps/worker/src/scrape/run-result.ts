/** What running the engines ended with: a document, or the job moved to another queue. */
export type RunResult =
  | { kind: 'document'; document: Record<string, unknown>; engine: string; links?: string[]; finalUrl: string }
  | { kind: 'handed-off' };
