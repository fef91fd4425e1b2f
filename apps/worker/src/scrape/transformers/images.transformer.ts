import { convertedFormat } from './converted-format.js';

/** The `images` format: the HTML pipeline's images of the page. */
export const imagesTransformer = convertedFormat('images');
