export { extractMetadata, metadataElements, metadataOfElements } from './extract-metadata.js';
export type { ExtractMetadataOptions, PageMetadata } from './extract-metadata.js';
export { extractLinks } from './extract-links.js';
export { extractImages } from './extract-images.js';
export { metaKeys } from './meta-key.js';
export { largestSrcsetCandidate, parseSrcset } from './srcset.js';
export type { SrcsetCandidate } from './srcset.js';
export { isPlaceholderSrc, lazyImageSrc } from './lazy-image.js';
