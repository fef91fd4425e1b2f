export { htmlToMarkdown } from './html-to-markdown.js';
export type { HtmlToMarkdownOptions } from './html-to-markdown.js';
