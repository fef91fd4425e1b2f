import { cleanContent, type Llm } from '@trawl/llm';
import { appendWarning, llmCredits, MARKDOWN_READERS, runLlmFormat } from './llm-format.js';
import type { DocumentTransformer } from './transformer.js';

/**
 * `onlyCleanContent`: removes the markdown lines the LLM names as not content (banners, widgets,
 * comments...). Runs right after `markdown`: it replaces `document.markdown` and the markdown every
 * later format reads (the LLM formats, change tracking). When the LLM fails the page stays as it is,
 * with a warning.
 */
export function cleanContentTransformer(llm: Llm | undefined): DocumentTransformer {
  return {
    name: 'cleancontent',
    formats: [],
    needs: 'llm',
    converts: { markdown: true },
    // Worth running only when something reads the markdown.
    applies: (request) => request.onlyCleanContent && request.formats.some((f) => (MARKDOWN_READERS as readonly string[]).includes(f.type)),
    credits: (request) => llmCredits(request, llm, 'onlyCleanContent'),
    async run(input, document) {
      const markdown = input.converted.markdown ?? '';
      if (markdown.trim() === '') return;
      if (!llm) return appendWarning(document, 'onlyCleanContent: no LLM is configured on this worker; the content was not cleaned.');
      const result = await runLlmFormat(input, document, 'onlyCleanContent', (call) => cleanContent(llm, { ...call, markdown }));
      if (!result) return;
      // Later transformers read `converted.markdown`: they see the cleaned page.
      input.converted.markdown = result.markdown;
      if (document.markdown !== undefined) document.markdown = result.markdown;
      if (result.warning) appendWarning(document, result.warning);
    },
  };
}
