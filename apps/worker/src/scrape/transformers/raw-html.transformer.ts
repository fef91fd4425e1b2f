import { convertedFormat } from './converted-format.js';

/** The `rawHtml` format: the HTML pipeline's rawHtml of the page. */
export const rawHtmlTransformer = convertedFormat('rawHtml');
