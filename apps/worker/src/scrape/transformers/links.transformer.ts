import { convertedFormat } from './converted-format.js';

/** The `links` format: the HTML pipeline's links of the page. */
export const linksTransformer = convertedFormat('links');
