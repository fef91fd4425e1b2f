import { answerQuestion, type Llm } from '@trawl/llm';
import { appendWarning, formatOf, llmCredits, noLlmWarning, runLlmFormat } from './llm-format.js';
import type { DocumentTransformer } from './transformer.js';

/**
 * The `question` format: the answer to `question` from the page only, in `document.answer`
 * (`NOT_IN_PAGE_ANSWER` when the page has none). The deprecated `query {prompt, mode}` form is not in
 * the request schema, so it never reaches the worker.
 */
export function questionTransformer(llm: Llm | undefined): DocumentTransformer {
  return {
    name: 'question',
    formats: ['question'],
    needs: 'llm',
    converts: { markdown: true },
    credits: (request) => llmCredits(request, llm, 'question'),
    async run(input, document) {
      const format = formatOf(input.request, 'question');
      if (!format) return;
      document.answer = null;
      if (!llm) return noLlmWarning(document, 'answer');
      const result = await runLlmFormat(input, document, 'answer', (call) => answerQuestion(llm, {
        ...call, markdown: input.converted.markdown ?? '', question: format.question,
      }));
      if (!result) return;
      document.answer = result.answer;
      if (result.warning) appendWarning(document, result.warning);
    },
  };
}
