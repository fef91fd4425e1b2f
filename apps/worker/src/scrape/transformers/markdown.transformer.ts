import { convertedFormat } from './converted-format.js';

/** The `markdown` format: the HTML pipeline's markdown of the page. */
export const markdownTransformer = convertedFormat('markdown');
