import { LlmError } from '../types.js';
import { downLlm, ScriptedLlm } from './__fixtures__/scripted-llm.js';
import { changedFields, compareVersions } from './compare-versions.js';

const schema = { type: 'object', properties: { price: { type: 'number' }, name: { type: 'string' }, tags: { type: 'array' } } };
/** The model reads the price from the page it is given. */
const byPage = new ScriptedLlm((call) => ({ price: Number(/costs (\d+)/.exec(call.content)?.[1]), name: 'Widget', tags: ['a', 'b'] }));

describe('compareVersions', () => {
  it('reports the top-level fields that changed, with previous and current values', async () => {
    const r = await compareVersions(byPage, { previous: 'It costs 10.', current: 'It costs 12.', schema });
    expect(r.json).toEqual({ price: { previous: 10, current: 12 } });
    expect(byPage.calls.every((c) => c.feature === 'change-tracking')).toBe(true);
  });

  it('costs no call for equal versions', async () => {
    const llm = new ScriptedLlm(() => ({}));
    expect((await compareVersions(llm, { previous: 'a', current: 'a', prompt: 'p' })).json).toEqual({});
    expect(llm.calls).toHaveLength(0);
  });

  it('compares with deep equality', () => {
    expect(changedFields({ a: { x: 1, y: [1] }, b: 1 }, { a: { y: [1], x: 1 }, b: 2, c: 3 })).toEqual({ b: { previous: 1, current: 2 }, c: { previous: null, current: 3 } });
    expect(changedFields(['a'], ['b'])).toEqual({ value: { previous: ['a'], current: ['b'] } });
  });

  it('without schema or prompt, gives an account of the change from one call with both versions', async () => {
    const llm = new ScriptedLlm(() => ({ summary: 'The price rose.', changes: [{ kind: 'changed', text: 'price 10 -> 12' }] }));
    const r = await compareVersions(llm, { previous: 'It costs 10.', current: 'It costs 12.' });
    expect(r.json).toEqual({ summary: 'The price rose.', changes: [{ kind: 'changed', text: 'price 10 -> 12' }] });
    expect(llm.calls).toHaveLength(1);
    expect(llm.calls[0]!.content).toMatch(/PREVIOUS VERSION ===\nIt costs 10\.[\s\S]*CURRENT VERSION ===\nIt costs 12\./);
  });

  it('gives null and a warning for a bad answer; the LLM failing propagates', async () => {
    const r = await compareVersions(new ScriptedLlm(() => undefined), { previous: 'a', current: 'b', schema });
    expect(r.json).toBeNull();
    expect(r.warning).toBeDefined();
    await expect(compareVersions(downLlm(), { previous: 'a', current: 'b' })).rejects.toBeInstanceOf(LlmError);
  });
});
