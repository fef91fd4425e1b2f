import { splitUnits } from '../text-units.js';
import { LlmError } from '../types.js';
import { downLlm, longPage, ScriptedLlm } from './__fixtures__/scripted-llm.js';
import { HIGHLIGHT_SEPARATOR, pickHighlights } from './pick-highlights.js';

const page = [
  '# Opening hours',
  '',
  'The museum opens at nine in the morning. It closes at six in the evening. Tickets cost ten euros.',
  '',
  '- Guided tours start every hour.',
  '- The cafe serves lunch until three.',
].join('\n');

describe('pickHighlights', () => {
  it('returns the chosen units verbatim, in page order, and drops numbers out of range', async () => {
    const units = splitUnits(page);
    const llm = new ScriptedLlm(() => ({ indices: [3, 1, 99, -1, 1.5] }));
    const r = await pickHighlights(llm, { markdown: page, query: 'when does it close' });
    expect(r.method).toBe('llm');
    expect(r.highlights).toBe([units[1]!.text, units[3]!.text].join(HIGHLIGHT_SEPARATOR));
    for (const part of r.highlights.split(HIGHLIGHT_SEPARATOR)) expect(page).toContain(part);
    const call = llm.calls[0]!;
    expect(call).toMatchObject({ feature: 'highlights' });
    expect(call.content).toContain(`[1] ${units[1]!.text}`);
    expect(call.instructions).toContain('when does it close');
    expect(call.instructions).not.toContain('museum');
  });

  it('ranks lexically without an LLM', async () => {
    const r = await pickHighlights(undefined, { markdown: page, query: 'lunch cafe', limit: 1 });
    const cafe = splitUnits(page).find((u) => u.text.includes('cafe'))!.text;
    expect(r).toMatchObject({ method: 'lexical', highlights: cafe, usage: { calls: 0 } });
    expect(page).toContain(cafe);
  });

  it('falls back to the lexical ranking when the model chose nothing valid', async () => {
    const llm = new ScriptedLlm(() => ({ indices: [42] }));
    const r = await pickHighlights(llm, { markdown: page, query: 'tickets euros', limit: 1 });
    expect(r.method).toBe('lexical');
    expect(r.highlights).toContain('Tickets cost ten euros.');
    expect(r.usage.calls).toBe(1);
  });

  it('numbers the units of a long page in chunks with global numbers', async () => {
    const markdown = longPage(40);
    const units = splitUnits(markdown);
    const seen: number[] = [];
    const llm = new ScriptedLlm((call) => {
      const numbers = [...call.content.matchAll(/^\[(\d+)\]/gm)].map((m) => Number(m[1]));
      seen.push(...numbers);
      const wanted = numbers.filter((n) => units[n]!.text.includes('item-33 '));
      return { indices: wanted };
    }, 800, 100);
    const r = await pickHighlights(llm, { markdown, query: 'item-33' });
    expect(llm.calls.length).toBeGreaterThan(1);
    expect(new Set(seen).size).toBe(units.length);
    expect(r.highlights).toContain('item-33');
    expect(r.method).toBe('llm');
  });

  it('lets the LLM failing propagate', async () => {
    await expect(pickHighlights(downLlm(), { markdown: page, query: 'x' })).rejects.toBeInstanceOf(LlmError);
  });
});
