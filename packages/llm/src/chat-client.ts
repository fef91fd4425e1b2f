import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { CallSlots } from './call-slots.js';
import {
  OUTPUT_MODES, SchemaValidators, dataMessage, describeErrors, findJson, isObjectRoot, isStrictCompatible, repairMessage,
  schemaNameOf, structuredSystemMessage, unwrapValue, wireSchema, type OutputMode,
} from './structured-output.js';
import {
  LlmError, NO_USAGE, addUsage, type Llm, type LlmCallEvent, type LlmFeature, type LlmObserver, type LlmUsage,
  type StructuredRequest, type StructuredResult, type TextRequest, type TextResult,
} from './types.js';

/** Settings of the client (structurally the config package's `LlmEnvSettings`). */
export interface LlmClientSettings {
  baseUrl: string;
  apiKey?: string;
  model: string;
  models: Partial<Record<'json' | 'summary' | 'clean' | 'answer' | 'crawl', string>>;
  contextTokens: number;
  maxOutputTokens: number;
  timeoutMs: number;
  /** Calls in flight in this process; more wait their turn. */
  concurrency: number;
}

/** What the client logs through (pino's shape); never a prompt or completion with zero data retention. */
export interface LlmLogger {
  debug(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/** The library insists on a key; local servers (Ollama, vLLM, llama.cpp) need none. */
const PLACEHOLDER_API_KEY = 'no-key';
/** Pause before the one retry of a connection error, 429 or 5xx, ms (a `retry-after` up to 5 s wins). */
const RETRY_DELAY_MS = 500;
const MAX_RETRY_AFTER_MS = 5_000;

/** One answered request. */
interface Completion {
  content: string;
  usage: LlmUsage;
}

/** A request's state across the attempts of one `structured()`/`text()` operation. */
interface Operation {
  feature: LlmFeature;
  model: string;
  signal: AbortSignal | undefined;
  maxTokens: number;
  zeroDataRetention: boolean;
  usage: LlmUsage;
}

/**
 * The one Chat Completions client (`POST {base}/chat/completions` through the `openai` library; never
 * the Responses API). Structured answers ask for `json_schema`, fall back to `json_object` and then to
 * plain text when the server refuses a format (remembered per base URL and model), are parsed
 * leniently (fences, prose), validated against the caller's schema and repaired once. At most
 * `settings.concurrency` requests are in flight; the rest wait in FIFO order. One {@link LlmCallEvent}
 * per `structured()`/`text()` operation (its requests summed).
 */
export class ChatCompletionsLlm implements Llm {
  readonly contextTokens: number;
  readonly maxOutputTokens: number;
  private readonly client: OpenAI;
  private readonly slots: CallSlots;
  private readonly validators = new SchemaValidators();
  /** `baseUrl model` -> the most constrained output mode the server accepted. */
  private readonly modes = new Map<string, OutputMode>();

  constructor(
    readonly settings: LlmClientSettings,
    readonly opts: { observer?: LlmObserver; logger?: LlmLogger } = {},
  ) {
    this.contextTokens = settings.contextTokens;
    this.maxOutputTokens = settings.maxOutputTokens;
    // Retries are ours (one, for connection errors, 429 and 5xx): the library would also retry timeouts.
    this.client = new OpenAI({ baseURL: settings.baseUrl, apiKey: settings.apiKey || PLACEHOLDER_API_KEY, maxRetries: 0, timeout: settings.timeoutMs });
    this.slots = new CallSlots(Math.max(1, settings.concurrency));
  }

  /** The model a feature uses. */
  modelFor(feature: LlmFeature): string {
    const m = this.settings.models;
    switch (feature) {
      case 'json':
      case 'extract':
      case 'change-tracking':
        return m.json ?? this.settings.model;
      case 'summary':
        return m.summary ?? this.settings.model;
      case 'clean':
        return m.clean ?? this.settings.model;
      case 'answer':
      case 'highlights':
        return m.answer ?? this.settings.model;
      case 'crawl':
        return m.crawl ?? this.settings.model;
      default:
        return this.settings.model;
    }
  }

  async structured<T = unknown>(request: StructuredRequest): Promise<StructuredResult<T>> {
    const op = this.operation(request);
    const started = performance.now();
    let compiled: ReturnType<SchemaValidators['compile']> | undefined;
    if (request.schema !== undefined) {
      compiled = this.validators.compile(request.schema);
      if (!compiled.ok) {
        const warning = `The JSON schema is invalid: ${compiled.problem}`;
        this.opts.logger?.warn({ feature: op.feature, problem: compiled.problem }, 'llm schema invalid');
        this.report(op, 'invalid', started);
        return { value: null, warning, usage: NO_USAGE };
      }
    }
    const validate = compiled?.ok ? compiled.validate : undefined;
    const wrapped = request.schema !== undefined && !isObjectRoot(request.schema);
    try {
      const { content, messages, mode } = await this.firstAnswer(op, request);
      const check = (answer: string): { ok: true; value: unknown } | { ok: false; problem: string } => {
        const found = findJson(answer);
        if (!found.ok) return { ok: false, problem: `the answer is not JSON (${found.reason})` };
        const value = unwrapValue(found.value, wrapped);
        if (validate) {
          if (!validate(value)) return { ok: false, problem: `the JSON does not match the schema: ${describeErrors(validate.errors)}` };
        } else if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          return { ok: false, problem: 'the answer is not a JSON object' };
        }
        return { ok: true, value };
      };
      let result = check(content);
      if (!result.ok) {
        this.debugAnswer(op, 'llm answer invalid, repairing', content);
        const repair: ChatCompletionMessageParam[] = [...messages, { role: 'assistant', content }, { role: 'user', content: repairMessage(result.problem) }];
        const second = await this.complete(op, { messages: repair, ...this.formatOf(mode, request) });
        result = check(second.content);
      }
      if (!result.ok) {
        this.report(op, 'invalid', started);
        return { value: null, warning: `The model's answer was not valid after one repair: ${result.problem}`, usage: op.usage };
      }
      this.report(op, 'ok', started);
      return { value: result.value as T, usage: op.usage };
    } catch (err) {
      throw this.failed(op, err, started);
    }
  }

  async text(request: TextRequest): Promise<TextResult> {
    const op = this.operation(request);
    const started = performance.now();
    try {
      const { content } = await this.complete(op, { messages: this.messages(request.instructions.trim(), request.content) });
      this.report(op, 'ok', started);
      return { text: content.trim(), usage: op.usage };
    } catch (err) {
      throw this.failed(op, err, started);
    }
  }

  private operation(request: StructuredRequest | TextRequest): Operation {
    return {
      feature: request.feature,
      model: this.modelFor(request.feature),
      signal: request.signal,
      maxTokens: request.maxOutputTokens ?? this.maxOutputTokens,
      zeroDataRetention: request.zeroDataRetention === true,
      usage: NO_USAGE,
    };
  }

  /** The first answer, walking down the output modes from the remembered one while the server refuses them. */
  private async firstAnswer(op: Operation, request: StructuredRequest): Promise<{ content: string; messages: ChatCompletionMessageParam[]; mode: OutputMode }> {
    const key = `${this.settings.baseUrl} ${op.model}`;
    const remembered = this.modes.get(key) ?? 'json_schema';
    // No schema, or a boolean one: nothing to send as json_schema.
    const floor: OutputMode = typeof request.schema === 'object' ? 'json_schema' : 'json_object';
    const start = Math.max(OUTPUT_MODES.indexOf(remembered), OUTPUT_MODES.indexOf(floor));
    let index = start;
    for (;;) {
      const mode = OUTPUT_MODES[index] ?? 'text';
      const messages = this.messages(structuredSystemMessage(request.instructions, mode, request.schema), request.content);
      try {
        const { content } = await this.complete(op, { messages, ...this.formatOf(mode, request) });
        // Remember only a fallback: a call without a schema starting at json_object proves nothing about json_schema.
        if (index > start) this.modes.set(key, mode);
        return { content, messages, mode };
      } catch (err) {
        if (mode === 'text' || !refusesFormat(err)) throw err;
        this.opts.logger?.debug({ feature: op.feature, model: op.model, mode, status: (err as APIError).status }, 'llm response format refused, falling back');
        index += 1;
      }
    }
  }

  private formatOf(mode: OutputMode, request: StructuredRequest): Pick<ChatCompletionCreateParamsNonStreaming, 'response_format'> {
    if (mode === 'json_object') return { response_format: { type: 'json_object' } };
    if (mode === 'json_schema' && typeof request.schema === 'object') {
      const schema = wireSchema(request.schema);
      return { response_format: { type: 'json_schema', json_schema: { name: schemaNameOf(request.schemaName), schema, strict: isStrictCompatible(schema) } } };
    }
    return {};
  }

  private messages(system: string, content: string): ChatCompletionMessageParam[] {
    return [{ role: 'system', content: system }, { role: 'user', content: dataMessage(content) }];
  }

  /** One request (plus one retry of a connection error, 429 or 5xx), inside a concurrency slot. */
  private async complete(op: Operation, params: Pick<ChatCompletionCreateParamsNonStreaming, 'messages' | 'response_format'>): Promise<Completion> {
    const mode = params.response_format?.type ?? 'text';
    for (let attempt = 0; ; attempt++) {
      const release = await this.slots.acquire(op.signal);
      const started = performance.now();
      // The timeout starts once the request may go out: waiting for a slot is bounded by the caller's signal.
      const timeout = AbortSignal.timeout(this.settings.timeoutMs);
      const signal = op.signal ? AbortSignal.any([op.signal, timeout]) : timeout;
      try {
        const body: ChatCompletionCreateParamsNonStreaming = { model: op.model, max_tokens: op.maxTokens, ...params };
        const res = await this.client.chat.completions.create(body, { signal, timeout: this.settings.timeoutMs, maxRetries: 0 });
        const content = res.choices[0]?.message.content ?? '';
        const usage: LlmUsage = { promptTokens: res.usage?.prompt_tokens ?? 0, completionTokens: res.usage?.completion_tokens ?? 0, calls: 1 };
        op.usage = addUsage(op.usage, usage);
        this.opts.logger?.debug(
          { feature: op.feature, model: op.model, mode, promptTokens: usage.promptTokens, completionTokens: usage.completionTokens, ms: Math.round(performance.now() - started) },
          'llm call',
        );
        return { content, usage };
      } catch (err) {
        if (op.signal?.aborted) throw new LlmError('aborted', 'The LLM call was cancelled', { cause: err });
        if (timeout.aborted || err instanceof APIConnectionTimeoutError) {
          throw new LlmError('timeout', `The LLM endpoint did not answer within ${this.settings.timeoutMs} ms`, { cause: err });
        }
        if (attempt === 0 && retryable(err)) {
          release();
          await pause(retryDelayMs(err), op.signal);
          continue;
        }
        throw err;
      } finally {
        release();
      }
    }
  }

  private failed(op: Operation, err: unknown, started: number): LlmError {
    const error = toLlmError(err);
    this.opts.logger?.warn({ feature: op.feature, model: op.model, kind: error.kind, status: error.status, err: error.message }, 'llm call failed');
    this.report(op, error.kind, started);
    return error;
  }

  private report(op: Operation, outcome: LlmCallEvent['outcome'], started: number): void {
    this.opts.observer?.({
      feature: op.feature,
      model: op.model,
      outcome,
      seconds: (performance.now() - started) / 1000,
      promptTokens: op.usage.promptTokens,
      completionTokens: op.usage.completionTokens,
    });
  }

  /** Debug log of an answer: its length only (nothing of it with zero data retention). */
  private debugAnswer(op: Operation, msg: string, answer: string): void {
    const fields = op.zeroDataRetention ? {} : { answerChars: answer.length };
    this.opts.logger?.debug({ feature: op.feature, model: op.model, ...fields }, msg);
  }
}

/** A refusal of the response format: any 400, or a 422 that names the format or schema. */
function refusesFormat(err: unknown): boolean {
  if (!(err instanceof APIError)) return false;
  if (err.status === 400) return true;
  return err.status === 422 && /response_format|json_schema|json_object|schema|json/i.test(err.message);
}

function retryable(err: unknown): boolean {
  if (err instanceof APIUserAbortError || err instanceof APIConnectionTimeoutError) return false;
  if (err instanceof APIConnectionError) return true;
  return err instanceof APIError && typeof err.status === 'number' && (err.status === 429 || err.status >= 500);
}

function retryDelayMs(err: unknown): number {
  const header = err instanceof APIError ? err.headers?.get('retry-after') : null;
  const seconds = header ? Number(header) : Number.NaN;
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS) : RETRY_DELAY_MS;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LlmError('aborted', 'The LLM call was cancelled'));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new LlmError('aborted', 'The LLM call was cancelled'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The error a caller sees: the endpoint's status and message, never the prompt. */
function toLlmError(err: unknown): LlmError {
  if (err instanceof LlmError) return err;
  if (err instanceof APIUserAbortError) return new LlmError('aborted', 'The LLM call was cancelled', { cause: err });
  if (err instanceof APIConnectionTimeoutError) return new LlmError('timeout', 'The LLM endpoint did not answer in time', { cause: err });
  if (err instanceof APIConnectionError) {
    const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
    return new LlmError('unavailable', `The LLM endpoint cannot be reached${cause}`, { cause: err });
  }
  if (err instanceof APIError && typeof err.status === 'number') {
    const detail = endpointMessage(err);
    const status = err.status;
    const kind = status >= 500 || status === 404 ? 'unavailable' : 'refused';
    const what = kind === 'unavailable' ? 'The LLM endpoint is unavailable' : 'The LLM endpoint refused the request';
    return new LlmError(kind, `${what}: HTTP ${status}${detail ? ` ${detail}` : ''}`, { status, cause: err });
  }
  return new LlmError('unavailable', `The LLM call failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}

function endpointMessage(err: APIError): string {
  const body = err.error as { message?: unknown } | undefined;
  const msg = body && typeof body.message === 'string' ? body.message : '';
  return msg.slice(0, 300);
}
