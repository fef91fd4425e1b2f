import { SaxesParser, type SaxesAttributeNS, type SaxesTagNS } from 'saxes';
import type { ParseGuard } from './parse-guard.js';
import type { ZipArchive } from './zip-archive.js';

/** A start or end tag as the readers see it. */
export interface XmlTag {
  /** Namespace URI ('' when none). */
  uri: string;
  /** Local name (`p` for `w:p`). */
  local: string;
  attributes: Record<string, SaxesAttributeNS>;
  selfClosing: boolean;
}

/** Callbacks of {@link streamXml}; each may be absent. */
export interface XmlHandler {
  open?(tag: XmlTag): void;
  close?(tag: XmlTag): void;
  text?(text: string): void;
}

/**
 * The value of an attribute by local name, optionally restricted to a namespace URI. OOXML writers
 * agree on local names but not always on prefixes, hence no lookups by qualified name.
 */
export function attr(tag: XmlTag, local: string, uri?: string): string | undefined {
  for (const key in tag.attributes) {
    const a = tag.attributes[key];
    if (a && a.local === local && (uri === undefined || a.uri === uri)) return a.value;
  }
  return undefined;
}

/** Options of {@link streamXml}. */
export interface StreamXmlOptions {
  guard: ParseGuard;
  /** Collects XML well-formedness problems (the parse goes on past them: a partly readable file beats none). */
  warnings?: string[];
}

/** The errors reported for one part at most: a broken file repeats the same one. */
const MAX_XML_WARNINGS = 3;

/**
 * Streams one ZIP part through a namespace-aware SAX parser: the inflated chunks are decoded and fed
 * as they come, so a 20 MB sheet never exists as one string or tree. Entities other than the five
 * predefined ones are never expanded (saxes does not read DTDs), which rules out entity bombs.
 */
export function streamXml(zip: ZipArchive, part: string, handler: XmlHandler, opts: StreamXmlOptions): void {
  const parser = createParser(part, handler, opts);
  let decoder: InstanceType<typeof TextDecoder> | undefined;
  zip.stream(part, (chunk) => {
    decoder ??= new TextDecoder(chunk[0] === 0xff && chunk[1] === 0xfe ? 'utf-16le' : chunk[0] === 0xfe && chunk[1] === 0xff ? 'utf-16be' : 'utf-8');
    parser.write(decoder.decode(chunk, { stream: true }));
  });
  if (decoder) parser.write(decoder.decode());
  parser.close();
}

/** Parses an XML string with the same handler model (RTF-free formats' small parts, tests). */
export function parseXmlString(xml: string, handler: XmlHandler, opts: StreamXmlOptions): void {
  createParser('(string)', handler, opts).write(xml).close();
}

function createParser(part: string, handler: XmlHandler, opts: StreamXmlOptions): SaxesParser<{ xmlns: true; position: false }> {
  const parser = new SaxesParser({ xmlns: true, position: false });
  let errors = 0;
  const toTag = (t: SaxesTagNS): XmlTag => ({ uri: t.uri, local: t.local, attributes: t.attributes, selfClosing: t.isSelfClosing });
  const { guard } = opts;
  if (handler.open) {
    const open = handler.open.bind(handler);
    parser.on('opentag', (t) => {
      guard.tick();
      open(toTag(t));
    });
  }
  if (handler.close) {
    const close = handler.close.bind(handler);
    parser.on('closetag', (t) => close(toTag(t)));
  }
  if (handler.text) {
    const text = handler.text.bind(handler);
    parser.on('text', text);
    parser.on('cdata', text);
  }
  parser.on('error', (err) => {
    if (++errors <= MAX_XML_WARNINGS) opts.warnings?.push(`XML error in ${part}: ${err.message}`);
  });
  return parser;
}
