import type { DocumentTransformer } from './transformer.js';

type ConvertedKey = 'markdown' | 'html' | 'rawHtml' | 'links' | 'images';

/**
 * A format the HTML pipeline produces as it is (markdown, html, rawHtml, links, images): asks the
 * converter for it and copies it into the Document. Costs nothing beyond the page.
 */
export function convertedFormat(key: ConvertedKey): DocumentTransformer {
  return {
    name: key.toLowerCase(),
    formats: [key],
    needs: 'nothing',
    converts: { [key]: true },
    credits: () => 0,
    run({ converted }, document) {
      const value = converted[key];
      if (value === undefined) return;
      if (key === 'links' || key === 'images') document[key] = value as string[];
      else document[key] = value as string;
    },
  };
}
