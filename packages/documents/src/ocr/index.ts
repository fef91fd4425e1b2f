export { TesseractOcrEngine, ocrEngineAvailable, type TesseractOcrEngineOptions } from './tesseract-ocr-engine.js';
export { readImage } from './read-image.js';
export { sniffImageType, readImageHeader, checkImage, DEFAULT_MAX_IMAGE_PIXELS, type ImageType, type ImageHeader } from './image-header.js';
export { parseTesseractTsv, type ParseTesseractTsvOptions } from './parse-tesseract-tsv.js';
