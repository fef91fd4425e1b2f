import { summarize, type Llm } from '@trawl/llm';
import { appendWarning, llmCredits, noLlmWarning, runLlmFormat } from './llm-format.js';
import type { DocumentTransformer } from './transformer.js';

/** The `summary` format: a few sentences on the page from its markdown (map-reduce for long pages). */
export function summaryTransformer(llm: Llm | undefined): DocumentTransformer {
  return {
    name: 'summary',
    formats: ['summary'],
    needs: 'llm',
    converts: { markdown: true },
    credits: (request) => llmCredits(request, llm, 'summary'),
    async run(input, document) {
      // Like every AI field: null (with the warning saying why) when it could not be produced.
      document.summary = null;
      if (!llm) return noLlmWarning(document, 'summary');
      const result = await runLlmFormat(input, document, 'summary', (call) => summarize(llm, { ...call, markdown: input.converted.markdown ?? '' }));
      if (!result) return;
      document.summary = result.summary;
      if (result.warning) appendWarning(document, result.warning);
    },
  };
}
