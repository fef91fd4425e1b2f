import { convertedFormat } from './converted-format.js';

/** The `html` format: the HTML pipeline's html of the page. */
export const htmlTransformer = convertedFormat('html');
