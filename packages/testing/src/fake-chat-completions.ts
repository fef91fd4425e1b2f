import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './listen.js';
import { waitOrGone } from './wait-or-gone.js';

/** One `POST /v1/chat/completions` the fake received, in arrival order. */
export interface FakeChatRequest {
  model: string;
  messages: Array<{ role: string; content: string }>;
  /** `response_format` as sent. */
  responseFormat?: { type: string; json_schema?: { name: string; schema: unknown; strict?: boolean } };
  /** `max_tokens` (or `max_completion_tokens`). */
  maxTokens?: number;
  /** The whole parsed body. */
  body: Record<string, unknown>;
  /** The `Authorization` header, when sent. */
  authorization?: string;
}

/**
 * How the fake behaves:
 * - `json-schema`: honours any `response_format` (answers `respond()` as is);
 * - `reject-json-schema`: 400 (OpenAI error body) to `response_format.type === 'json_schema'`, honours `json_object`;
 * - `ignore-response-format`: prose around the JSON whatever is asked;
 * - `fenced`: "Here is the JSON:\n```json\n...\n```";
 * - `repair`: a conversation without an assistant turn gets `invalidAnswer`, one with an assistant turn gets `respond()`;
 * - `down`: 503 to everything (chat completion requests are still recorded);
 * - `slow`: waits `delayMs` before answering (the wait ends early when the client goes away).
 */
export type FakeChatMode = 'json-schema' | 'reject-json-schema' | 'ignore-response-format' | 'fenced' | 'repair' | 'down' | 'slow';

/** Options of {@link startFakeChatCompletions}. */
export interface FakeChatOptions {
  /** The model's answer content for a request: a string is sent as is, anything else JSON-encoded. */
  respond: (request: FakeChatRequest) => unknown;
  /** Default `json-schema`. */
  mode?: FakeChatMode;
  /** `slow`: wait before answering, ms. Default 30 000. */
  delayMs?: number;
  /** `repair`: the first answer of a conversation. Default `{"unexpected": true}`. */
  invalidAnswer?: unknown;
}

/** A running fake; see {@link startFakeChatCompletions}. */
export interface FakeChatServer {
  /** `http://127.0.0.1:<port>/v1`: the base URL to configure. */
  baseUrl: string;
  /** Every chat completion request received, in order (recorded on arrival, before any delay). */
  requests: FakeChatRequest[];
  setMode(mode: FakeChatMode): void;
  close(): Promise<void>;
}

const MODELS = ['fake-model'];

/**
 * A local server speaking the OpenAI Chat Completions protocol (`POST /v1/chat/completions`,
 * `GET /v1/models`), so tests exercise the production client against the real wire format. Usage:
 * `prompt_tokens` = ceil(chars of all messages / 4), `completion_tokens` = ceil(chars of the answer / 4).
 */
export async function startFakeChatCompletions(opts: FakeChatOptions): Promise<FakeChatServer> {
  let mode: FakeChatMode = opts.mode ?? 'json-schema';
  const requests: FakeChatRequest[] = [];
  let counter = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const raw = await readBody(req);
    const down = (): void => sendError(res, 503, 'The model server is temporarily unavailable', 'server_error', 'service_unavailable');
    if (req.method === 'GET' && path === '/v1/models') {
      if (mode === 'down') return down();
      return sendJson(res, 200, { object: 'list', data: MODELS.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) });
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      if (mode === 'down') return down();
      return sendError(res, 404, `Unknown path ${req.method ?? ''} ${path}`, 'invalid_request_error', 'not_found');
    }
    let body: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('body is not an object');
      body = parsed as Record<string, unknown>;
    } catch {
      if (mode === 'down') return down();
      return sendError(res, 400, 'We could not parse the JSON body of your request.', 'invalid_request_error', 'invalid_json');
    }
    const request = toRequest(body, req.headers.authorization);
    requests.push(request);
    if (mode === 'down') return down();
    if (!Array.isArray(body.messages) || request.messages.length === 0) {
      return sendError(res, 400, "'messages' is a required property", 'invalid_request_error', 'invalid_value');
    }
    const format = request.responseFormat?.type;
    if (mode === 'reject-json-schema' && format === 'json_schema') {
      return sendError(res, 400, "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", 'invalid_request_error', 'invalid_parameter');
    }
    if (mode === 'slow') {
      const gone = await waitOrGone(res, opts.delayMs ?? 30_000);
      if (gone) return;
    }
    const hasAssistant = request.messages.some((m) => m.role === 'assistant');
    const answer = mode === 'repair' && !hasAssistant ? (opts.invalidAnswer ?? { unexpected: true }) : await opts.respond(request);
    const json = typeof answer === 'string' ? answer : JSON.stringify(answer);
    let content = json;
    if (mode === 'fenced') content = `Here is the JSON:\n\`\`\`json\n${json}\n\`\`\``;
    if (mode === 'ignore-response-format') content = `Sure! Based on the page, this is what I found: ${json}\nLet me know if you need anything else.`;
    const promptChars = request.messages.reduce((n, m) => n + m.content.length, 0);
    const promptTokens = Math.ceil(promptChars / 4);
    const completionTokens = Math.ceil(content.length / 4);
    counter += 1;
    sendJson(res, 200, {
      id: `chatcmpl-fake-${counter}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
    });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, `fake server failure: ${String(err)}`, 'server_error', 'internal_error');
      else res.destroy();
    });
  });
  const port = await listenOnLoopback(server);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    setMode(next: FakeChatMode) {
      mode = next;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function toRequest(body: Record<string, unknown>, authorization: string | undefined): FakeChatRequest {
  const messages = Array.isArray(body.messages)
    ? body.messages.map((m: unknown) => {
        const msg = (m && typeof m === 'object' ? m : {}) as { role?: unknown; content?: unknown };
        return { role: String(msg.role ?? ''), content: contentText(msg.content) };
      })
    : [];
  const request: FakeChatRequest = { model: typeof body.model === 'string' ? body.model : '', messages, body };
  const rf = body.response_format;
  if (rf && typeof rf === 'object') request.responseFormat = rf as NonNullable<FakeChatRequest['responseFormat']>;
  const maxTokens = body.max_tokens ?? body.max_completion_tokens;
  if (typeof maxTokens === 'number') request.maxTokens = maxTokens;
  if (authorization !== undefined) request.authorization = authorization;
  return request;
}

/** Message content is a string or an array of `{type:'text', text}` parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((p: unknown) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('');
  }
  return '';
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, type: string, code: string): void {
  sendJson(res, status, { error: { message, type, code, param: null } });
}
