import { findFormat } from '@trawl/api-schema';
import { selectAttributes } from '@trawl/html';
import type { DocumentTransformer } from './transformer.js';

/**
 * The `attributes` format: for each `{selector, attribute}`, the attribute's values on the elements the
 * CSS selector matches in the page's raw HTML (before cleaning, so nothing the cleaner drops is
 * missed). URL attributes (`href`, `src`...) are made absolute against the page, like `links`.
 * Costs nothing beyond the page.
 */
export const attributesTransformer: DocumentTransformer = {
  name: 'attributes',
  formats: ['attributes'],
  needs: 'nothing',
  converts: { rawHtml: true },
  credits: () => 0,
  run({ request, source, converted }, document) {
    const format = findFormat(request.formats, 'attributes');
    if (!format) return;
    const html = converted.rawHtml ?? source.page.text ?? '';
    document.attributes = selectAttributes(html, source.page.url, format.selectors);
  },
};
