import { htmlToMarkdown } from '@trawl/html';
import type { DocumentTransformer } from './transformer.js';

/**
 * `parsers: [{type:'pdf', pages: true}]`: the markdown of each PDF page converted, as
 * `Document.pages` (`{pageNumber, markdown}`), beside the whole document's markdown. Billed with the
 * document (1 credit per page converted); nothing more. Absent for anything but a parsed PDF.
 */
export const pagesTransformer: DocumentTransformer = {
  name: 'pages',
  formats: [],
  needs: 'nothing',
  applies: (request) => request.parsers[0]?.pages === true,
  credits: () => 0,
  run({ source }, document) {
    if (source.pdfPages === undefined) return;
    document.pages = source.pdfPages.map((p) => ({ pageNumber: p.pageNumber, markdown: htmlToMarkdown(p.html, { baseUrl: source.page.url }) }));
  },
};
