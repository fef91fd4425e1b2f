import { afterEach, describe, expect, it } from '@jest/globals';
import { startFakeChatCompletions, type FakeChatServer } from './fake-chat-completions.js';
import { waitFor } from './wait-for.js';

describe('startFakeChatCompletions', () => {
  let server: FakeChatServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const post = async (s: FakeChatServer, body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> => {
    const res = await fetch(`${s.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hello!!' }], ...body }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };
  const contentOf = (json: Record<string, unknown>): string =>
    (json.choices as Array<{ message: { content: string } }>)[0]?.message.content ?? '';

  it('answers OpenAI-shaped completions with usage, records requests, lists models', async () => {
    server = await startFakeChatCompletions({ respond: () => ({ a: 1 }) });
    const { status, json } = await post(server, { response_format: { type: 'json_object' }, max_tokens: 12 });
    expect(status).toBe(200);
    expect(json).toMatchObject({ object: 'chat.completion', model: 'm', usage: { prompt_tokens: 2, completion_tokens: 2, total_tokens: 4 } });
    expect(contentOf(json)).toBe('{"a":1}');
    expect(server.requests[0]).toMatchObject({ model: 'm', maxTokens: 12, authorization: 'Bearer k', responseFormat: { type: 'json_object' } });
    const models = await fetch(`${server.baseUrl}/models`);
    expect(((await models.json()) as { object: string }).object).toBe('list');
  });

  it('rejects json_schema in reject-json-schema mode with an OpenAI error body, honours json_object', async () => {
    server = await startFakeChatCompletions({ respond: () => ({ a: 1 }), mode: 'reject-json-schema' });
    const refused = await post(server, { response_format: { type: 'json_schema', json_schema: { name: 'x', schema: {} } } });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ error: { type: 'invalid_request_error' } });
    expect((await post(server, { response_format: { type: 'json_object' } })).status).toBe(200);
  });

  it('wraps answers in fences or prose, repairs, goes down', async () => {
    server = await startFakeChatCompletions({ respond: () => ({ ok: true }), mode: 'fenced' });
    expect(contentOf((await post(server, {})).json)).toContain('```json\n{"ok":true}\n```');
    server.setMode('ignore-response-format');
    expect(contentOf((await post(server, {})).json)).toMatch(/^Sure!.*\{"ok":true\}/s);
    server.setMode('repair');
    expect(contentOf((await post(server, {})).json)).toBe('{"unexpected":true}');
    const repaired = await post(server, { messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }] });
    expect(contentOf(repaired.json)).toBe('{"ok":true}');
    server.setMode('down');
    expect((await post(server, {})).status).toBe(503);
  });

  it('slow: holds the answer until the client goes away', async () => {
    server = await startFakeChatCompletions({ respond: () => 'late', mode: 'slow', delayMs: 60_000 });
    const s = server;
    const controller = new AbortController();
    const pending = fetch(`${s.baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
      signal: controller.signal,
    });
    await waitFor(() => s.requests.length === 1, { what: 'the request to arrive' });
    controller.abort();
    await expect(pending).rejects.toThrow();
  });
});
