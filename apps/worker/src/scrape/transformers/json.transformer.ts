import { extractJson, type Llm } from '@trawl/llm';
import { appendWarning, formatOf, llmCredits, noLlmWarning, runLlmFormat } from './llm-format.js';
import type { DocumentTransformer } from './transformer.js';

/** The `json` format: LLM extraction from the page's markdown (with `schema` and/or `prompt`) into `document.json`. */
export function jsonTransformer(llm: Llm | undefined): DocumentTransformer {
  return {
    name: 'json',
    formats: ['json'],
    needs: 'llm',
    converts: { markdown: true },
    credits: (request) => llmCredits(request, llm, 'json'),
    async run(input, document) {
      const format = formatOf(input.request, 'json');
      if (!format) return;
      document.json = null;
      if (!llm) return noLlmWarning(document, 'json');
      const result = await runLlmFormat(input, document, 'json', (call) => extractJson(llm, {
        ...call, feature: 'json', markdown: input.converted.markdown ?? '',
        ...(format.schema !== undefined ? { schema: format.schema } : {}), ...(format.prompt !== undefined ? { prompt: format.prompt } : {}),
      }));
      if (!result) return;
      document.json = result.value;
      if (result.warning) appendWarning(document, result.warning);
    },
  };
}
