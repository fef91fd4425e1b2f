import { LlmError } from '../types.js';
import { downLlm, ScriptedLlm } from './__fixtures__/scripted-llm.js';
import { cleanContent } from './clean-content.js';

const lines = [
  '# The article', // 1
  '', // 2
  'We use cookies. [Accept](#)', // 3
  '', // 4
  'First paragraph of the article.', // 5
  '', // 6
  'Share on [X](#) [Facebook](#)', // 7
  '', // 8
  'Second paragraph of the article.', // 9
];
const page = lines.join('\n');

describe('cleanContent', () => {
  it('removes exactly the given line ranges and rewrites nothing', async () => {
    const llm = new ScriptedLlm(() => ({ remove: [[3, 4], [7, 7]] }));
    const r = await cleanContent(llm, { markdown: page });
    expect(r.markdown).toBe(['# The article', '', 'First paragraph of the article.', '', 'Second paragraph of the article.'].join('\n'));
    expect(r.removedLines).toBe(3);
    expect(r.warning).toBeUndefined();
    const call = llm.calls[0]!;
    expect(call).toMatchObject({ feature: 'clean' });
    expect(call.content).toContain('3|We use cookies. [Accept](#)');
    expect(call.instructions).not.toContain('cookies. [Accept]');
  });

  it('ignores reversed, non-integer and out-of-range ranges, and keeps the title heading', async () => {
    const llm = new ScriptedLlm(() => ({ remove: [[5, 3], [2.5, 3], [40, 50], [1, 1]] }));
    const r = await cleanContent(llm, { markdown: page });
    expect(r.markdown).toBe(page);
    expect(r.removedLines).toBe(0);
  });

  it('keeps the page when the model would remove all of it', async () => {
    const r = await cleanContent(new ScriptedLlm(() => ({ remove: [[1, 9]] })), { markdown: page });
    expect(r.markdown).toBe(page);
    expect(r.warning).toMatch(/whole page/);
  });

  it('goes chunk by chunk on a long page and keeps a chunk whose answer is bad', async () => {
    const long = Array.from({ length: 120 }, (_, i) => (i % 10 === 3 ? `Subscribe to our newsletter ${i}` : `Line ${i} of the article text, long enough to count.`)).join('\n');
    let call = 0;
    const llm = new ScriptedLlm((c) => {
      call += 1;
      if (call === 2) return undefined;
      return { remove: [...c.content.matchAll(/^(\d+)\|Subscribe/gm)].map((m) => [Number(m[1]), Number(m[1])]) };
    }, 800, 100);
    const r = await cleanContent(llm, { markdown: long });
    expect(llm.calls.length).toBeGreaterThan(2);
    const kept = r.markdown.split('\n');
    const secondChunk = llm.calls[1]!.content.split('\n').map((l) => l.slice(l.indexOf('|') + 1));
    // The failed chunk is kept whole; every other newsletter line is gone.
    for (const l of secondChunk) expect(kept).toContain(l);
    expect(kept.filter((l) => l.startsWith('Subscribe')).length).toBe(secondChunk.filter((l) => l.startsWith('Subscribe')).length);
    expect(r.warning).toMatch(/kept/);
    expect(r.removedLines).toBe(12 - secondChunk.filter((l) => l.startsWith('Subscribe')).length);
  });

  it('lets the LLM failing propagate', async () => {
    await expect(cleanContent(downLlm(), { markdown: page })).rejects.toBeInstanceOf(LlmError);
  });
});
