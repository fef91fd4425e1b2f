import type { DocumentTransformer } from './transformer.js';

/**
 * The `rawBase64` format (the only format of its request): the response body, base64-encoded, whatever
 * its content type. Binary kinds (PDF, office files, images) keep their bytes as received
 * (decompressed); text kinds are kept decoded, so their body is re-encoded as UTF-8.
 */
export const rawBase64Transformer: DocumentTransformer = {
  name: 'rawbase64',
  formats: ['rawBase64'],
  needs: 'nothing',
  credits: () => 0,
  run({ source }, document) {
    const { body, text } = source.page;
    document.rawBase64 = (body ?? Buffer.from(text ?? '', 'utf8')).toString('base64');
  },
};
