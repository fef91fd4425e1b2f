export { readPdf } from './read-pdf.js';
export { fontStyle, type FontStyle } from './font-style.js';
export { pdfDateToIso } from './pdf-metadata.js';
