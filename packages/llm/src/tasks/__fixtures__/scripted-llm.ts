import { LlmError, type Llm, type StructuredRequest, type StructuredResult, type TextRequest, type TextResult } from '../../types.js';

/** One request the scripted model received. */
export type ScriptedCall = (StructuredRequest & { kind: 'structured' }) | (TextRequest & { kind: 'text' });

/**
 * An {@link Llm} implementation answering from a script (not a module mock): `respond` computes the
 * answer from the request; `undefined` is a bad answer (value null + warning); a thrown error is the
 * endpoint failing. Every call is recorded.
 */
export class ScriptedLlm implements Llm {
  readonly calls: ScriptedCall[] = [];

  constructor(
    private readonly respond: (call: ScriptedCall) => unknown,
    readonly contextTokens = 100_000,
    readonly maxOutputTokens = 1000,
  ) {}

  async structured<T = unknown>(request: StructuredRequest): Promise<StructuredResult<T>> {
    const call = { ...request, kind: 'structured' as const };
    this.calls.push(call);
    const value = await this.respond(call);
    const usage = { promptTokens: 10, completionTokens: 2, calls: 1 };
    if (value === undefined) return { value: null, warning: 'the answer did not match the schema', usage };
    return { value: value as T, usage };
  }

  async text(request: TextRequest): Promise<TextResult> {
    const call = { ...request, kind: 'text' as const };
    this.calls.push(call);
    const text = await this.respond(call);
    return { text: String(text ?? ''), usage: { promptTokens: 10, completionTokens: 2, calls: 1 } };
  }
}

/** An LLM that is down. */
export function downLlm(): ScriptedLlm {
  return new ScriptedLlm(() => {
    throw new LlmError('unavailable', 'The LLM endpoint answered 503', { status: 503 });
  });
}

/** A markdown page of `n` sections, each a heading and a paragraph naming its number. */
export function longPage(n: number): string {
  return Array.from({ length: n }, (_, i) => `## Section ${i + 1}\n\nThis paragraph of section ${i + 1} talks about item-${i + 1} and nothing else, at some length so that it counts.`).join('\n\n');
}
