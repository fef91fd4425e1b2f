import { LlmError } from '../types.js';
import { downLlm, longPage, ScriptedLlm } from './__fixtures__/scripted-llm.js';
import { answerQuestion, NOT_IN_PAGE_ANSWER } from './answer-question.js';

describe('answerQuestion', () => {
  it('answers from the page: the question in the instructions, the page in the content', async () => {
    const llm = new ScriptedLlm(() => ({ found: true, answer: ' Nine o\'clock. ' }));
    const r = await answerQuestion(llm, { markdown: 'Opens at nine.', question: 'When does it open?' });
    expect(r.answer).toBe('Nine o\'clock.');
    const call = llm.calls[0]!;
    expect(call).toMatchObject({ feature: 'answer', content: 'Opens at nine.' });
    expect(call.instructions).toContain('When does it open?');
    expect(call.instructions).not.toContain('Opens at nine.');
  });

  it('says the page does not answer when the model did not find it', async () => {
    const r = await answerQuestion(new ScriptedLlm(() => ({ found: false, answer: 'Probably 9am' })), { markdown: 'x', question: 'q?' });
    expect(r.answer).toBe(NOT_IN_PAGE_ANSWER);
  });

  it('asks each chunk of a long page and takes the part that found it', async () => {
    const llm = new ScriptedLlm((call) => (call.content.includes('item-25 ') ? { found: true, answer: 'In section 25.' } : { found: false, answer: '' }), 800, 100);
    const r = await answerQuestion(llm, { markdown: longPage(30), question: 'Where is item-25?' });
    expect(llm.calls.length).toBeGreaterThan(1);
    expect(r.answer).toBe('In section 25.');
  });

  it('gives null and a warning for a bad answer; the LLM failing propagates', async () => {
    const r = await answerQuestion(new ScriptedLlm(() => undefined), { markdown: 'x', question: 'q?' });
    expect(r.answer).toBeNull();
    expect(r.warning).toBeDefined();
    await expect(answerQuestion(downLlm(), { markdown: 'x', question: 'q' })).rejects.toBeInstanceOf(LlmError);
  });
});
