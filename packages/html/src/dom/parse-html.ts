import { parseDocument } from 'htmlparser2';
import type { Document } from 'domhandler';

/**
 * Parses an HTML page into a domhandler Document (htmlparser2, entities decoded, tag and attribute
 * names lower-cased). The one parser of the package: every step works on this DOM.
 */
export function parseHtml(html: string): Document {
  return parseDocument(html);
}
