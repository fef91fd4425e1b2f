import { LlmError } from '../types.js';
import { downLlm, longPage, ScriptedLlm } from './__fixtures__/scripted-llm.js';
import { EXTRACTION_RULES, extractJson, pathKeys } from './extract-json.js';

const schema = { type: 'object', properties: { title: { type: 'string' }, price: { type: ['number', 'null'] } }, required: ['title', 'price'] };

describe('extractJson', () => {
  it('sends a page that fits in one call: systemPrompt, the rules, then the prompt in the system message; the page only in the content', async () => {
    const llm = new ScriptedLlm(() => ({ title: 'Widget', price: 12 }));
    const markdown = '# Widget\n\nThe widget costs 12 euros.';
    const r = await extractJson(llm, { markdown, schema, prompt: 'Get the product', systemPrompt: 'You work for a shop.' });
    expect(r).toMatchObject({ value: { title: 'Widget', price: 12 }, chunks: 1, usage: { calls: 1 } });
    expect(llm.calls).toHaveLength(1);
    const call = llm.calls[0]!;
    expect(call).toMatchObject({ kind: 'structured', feature: 'json', schema, content: markdown });
    const { instructions } = call;
    expect(instructions.indexOf('You work for a shop.')).toBe(0);
    expect(instructions.indexOf(EXTRACTION_RULES)).toBeGreaterThan(0);
    expect(instructions.indexOf('Get the product')).toBeGreaterThan(instructions.indexOf(EXTRACTION_RULES));
    expect(instructions).toMatch(/null for anything the page does not state/);
    expect(instructions).not.toContain('12 euros');
    expect(call.content).not.toContain('Get the product');
  });

  it('asks for an object when there is no schema', async () => {
    const llm = new ScriptedLlm(() => ({ anything: 1 }));
    const r = await extractJson(llm, { markdown: 'text', prompt: 'what is there' });
    expect(r.value).toEqual({ anything: 1 });
    expect(llm.calls[0]!.kind === 'structured' && llm.calls[0]!.schema).toBeUndefined();
    expect(llm.calls[0]!.instructions).toMatch(/one JSON object/);
  });

  it('passes the signal, zero data retention and the feature to every call', async () => {
    const llm = new ScriptedLlm(() => ({}));
    const signal = new AbortController().signal;
    await extractJson(llm, { markdown: 'x', feature: 'extract', signal, zeroDataRetention: true });
    expect(llm.calls[0]).toMatchObject({ feature: 'extract', signal, zeroDataRetention: true });
  });

  it('chunks a page larger than the context window and merges the parts (arrays joined)', async () => {
    const itemsSchema = { type: 'object', properties: { items: { type: 'array', items: { type: 'string' } } } };
    const llm = new ScriptedLlm((call) => ({ items: [...call.content.matchAll(/item-\d+/g)].map((m) => m[0]) }), 800, 100);
    const r = await extractJson(llm, { markdown: longPage(30), schema: itemsSchema });
    expect(r.chunks).toBeGreaterThan(1);
    expect(llm.calls.length).toBe(r.chunks);
    expect(r.usage.calls).toBe(r.chunks);
    const items = (r.value as { items: string[] }).items;
    expect(new Set(items)).toEqual(new Set(Array.from({ length: 30 }, (_, i) => `item-${i + 1}`)));
    expect(items).toHaveLength(30);
    expect(llm.calls.every((c) => c.instructions.includes('part '))).toBe(true);
  });

  it('works with a top-level array schema over chunks', async () => {
    const arraySchema = { type: 'array', items: { type: 'string' } };
    const llm = new ScriptedLlm((call) => [...call.content.matchAll(/item-\d+/g)].map((m) => m[0]), 800, 100);
    const r = await extractJson(llm, { markdown: longPage(20), schema: arraySchema });
    expect(r.chunks).toBeGreaterThan(1);
    expect(new Set(r.value as string[]).size).toBe(20);
  });

  it('resolves conflicting scalar fields with ONE reduce call choosing among the candidates', async () => {
    const markdown = longPage(20);
    let chosen: unknown;
    const llm = new ScriptedLlm((call) => {
      if (call.kind === 'structured' && call.schemaName === 'choices') {
        const { fields } = JSON.parse(call.content) as { fields: Array<{ field: string; candidates: unknown[] }> };
        chosen = fields[0]!.candidates.at(-1);
        return { choices: fields.map((f) => ({ field: f.field, candidate: f.candidates.length - 1 })) };
      }
      const first = /item-\d+/.exec(call.content)![0];
      return { title: first, price: null };
    }, 800, 100);
    const r = await extractJson(llm, { markdown, schema });
    const reduces = llm.calls.filter((c) => c.kind === 'structured' && c.schemaName === 'choices');
    expect(reduces).toHaveLength(1);
    expect(chosen).toMatch(/^item-\d+$/);
    expect(chosen).not.toBe('item-1');
    expect(r.value).toEqual({ title: chosen, price: null });
    expect(r.usage.calls).toBe(r.chunks + 1);
  });

  it('keeps the first value with a warning when the reduce answer is bad', async () => {
    const llm = new ScriptedLlm((call) => (call.kind === 'structured' && call.schemaName === 'choices' ? undefined : { title: /item-\d+/.exec(call.content)![0], price: null }), 800, 100);
    const r = await extractJson(llm, { markdown: longPage(20), schema });
    expect((r.value as { title: string }).title).toBe('item-1');
    expect(r.warning).toMatch(/first part/);
  });

  it('gives null and a warning for a bad answer; the LLM failing propagates', async () => {
    const bad = await extractJson(new ScriptedLlm(() => undefined), { markdown: 'x', schema });
    expect(bad.value).toBeNull();
    expect(bad.warning).toMatch(/did not match/);
    await expect(extractJson(downLlm(), { markdown: 'x', schema })).rejects.toBeInstanceOf(LlmError);
  });

  it('reads JSON paths in their usual spellings', () => {
    expect(pathKeys('$.a.b[0]')).toEqual(['a', 'b', 0]);
    expect(pathKeys('a.b.0')).toEqual(['a', 'b', 0]);
    expect(pathKeys('/a/b')).toEqual(['a', 'b']);
    expect(pathKeys('$["x y"].z')).toEqual(['x y', 'z']);
  });
});
