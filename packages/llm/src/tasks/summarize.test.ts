import { downLlm, longPage, ScriptedLlm } from './__fixtures__/scripted-llm.js';
import { summarize } from './summarize.js';
import { LlmError } from '../types.js';

describe('summarize', () => {
  it('summarizes a page that fits in one call', async () => {
    const llm = new ScriptedLlm(() => '  A page about widgets.  ');
    const r = await summarize(llm, { markdown: '# Widgets\n\nAll about widgets.' });
    expect(r).toMatchObject({ summary: 'A page about widgets.', chunks: 1, usage: { calls: 1 } });
    expect(llm.calls[0]).toMatchObject({ kind: 'text', feature: 'summary', content: '# Widgets\n\nAll about widgets.' });
  });

  it('map-reduces a long page: each chunk summarized, then the summaries', async () => {
    const llm = new ScriptedLlm((call) => (call.content.startsWith('Part 1:') ? 'THE WHOLE' : `S(${/item-\d+/.exec(call.content)?.[0] ?? '?'})`), 800, 100);
    const r = await summarize(llm, { markdown: longPage(30) });
    expect(r.chunks).toBeGreaterThan(1);
    const reduce = llm.calls.filter((c) => c.content.startsWith('Part 1:'));
    expect(reduce.length).toBeGreaterThanOrEqual(1);
    expect(reduce.at(-1)!.content).toContain('S(item-1)');
    expect(r.summary).toBe('THE WHOLE');
    expect(r.usage.calls).toBe(llm.calls.length);
  });

  it('gives null and a warning for an empty answer; the LLM failing propagates', async () => {
    const r = await summarize(new ScriptedLlm(() => ''), { markdown: 'x' });
    expect(r.summary).toBeNull();
    expect(r.warning).toBeDefined();
    await expect(summarize(downLlm(), { markdown: 'x' })).rejects.toBeInstanceOf(LlmError);
  });
});
