import { compareVersions, type Llm } from '@trawl/llm';
import type { ChangeTracker } from '../change-tracking.js';
import { appendWarning, formatOf, llmCredits, noLlmWarning, runLlmFormat } from './llm-format.js';
import type { DocumentTransformer } from './transformer.js';

/**
 * The `changeTracking` format: compares the page's markdown with the previous scrape of the URL (see
 * ChangeTracker). It reads the markdown whether or not the request returns it; runs last, after every
 * other format is in place. Mode `json` compares the two versions with the LLM (`changeTracking.json`,
 * 4 credits): `{field: {previous, current}}` with a schema or prompt, else an account of the change.
 */
export function changeTrackingTransformer(changes: ChangeTracker, llm?: Llm): DocumentTransformer {
  return {
    name: 'changetracking',
    formats: ['changeTracking'],
    needs: 'nothing',
    converts: { markdown: true },
    credits: (request) => llmCredits(request, llm, 'changeTracking:json'),
    async run(input, document) {
      const { job, request, converted } = input;
      const compared = await changes.compare(job, request, { markdown: converted.markdown ?? '', statusCode: document.metadata.statusCode }, {
        hidden: job.crawl?.hidden === true,
      });
      if (compared === undefined) return;
      if (compared === null) {
        document.changeTracking = null;
        return;
      }
      const { result } = compared;
      document.changeTracking = result;
      const format = formatOf(request, 'changeTracking');
      if (!format?.modes?.includes('json')) return;
      result.json = null;
      if (!llm) return noLlmWarning(document, 'changeTracking json');
      const json = await runLlmFormat(input, document, 'changeTracking json', (call) => compareVersions(llm, {
        ...call, previous: compared.previousMarkdown ?? '', current: compared.markdown,
        ...(format.schema !== undefined ? { schema: format.schema } : {}), ...(format.prompt !== undefined ? { prompt: format.prompt } : {}),
      }));
      if (!json) return;
      result.json = json.json;
      if (json.warning) appendWarning(document, json.warning);
    },
  };
}
