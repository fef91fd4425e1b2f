import { pickHighlights, type Llm } from '@trawl/llm';
import { formatOf, llmCredits, runLlmFormat } from './llm-format.js';
import type { DocumentTransformer } from './transformer.js';

/**
 * The `highlights` format: the page's units most relevant to `query`, verbatim. With an LLM it picks
 * them (4 credits); without one they are ranked lexically (BM25, no extra credits), so the format
 * works on a deployment with no LLM.
 */
export function highlightsTransformer(llm: Llm | undefined): DocumentTransformer {
  return {
    name: 'highlights',
    formats: ['highlights'],
    needs: llm ? 'llm' : 'nothing',
    converts: { markdown: true },
    credits: (request) => llmCredits(request, llm, 'highlights'),
    async run(input, document) {
      const format = formatOf(input.request, 'highlights');
      if (!format) return;
      const markdown = input.converted.markdown ?? '';
      const query = format.query ?? '';
      document.highlights = null;
      const result = await runLlmFormat(input, document, 'highlights', (call) => pickHighlights(llm, { ...call, markdown, query }));
      if (result) document.highlights = result.highlights;
    },
  };
}
