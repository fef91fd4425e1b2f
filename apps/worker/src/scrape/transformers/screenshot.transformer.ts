import type { DocumentTransformer } from './transformer.js';

/**
 * The `screenshot` format: the signed URL of the screenshot the browser took (or the cache kept and
 * published again for this job). The browser stage takes it; this puts it in the Document.
 */
export const screenshotTransformer: DocumentTransformer = {
  name: 'screenshot',
  formats: ['screenshot'],
  needs: 'browser-page',
  credits: () => 0,
  run({ source }, document) {
    if (source.binaries?.screenshot !== undefined) document.screenshot = source.binaries.screenshot;
  },
};
