import type { AnyNode, Document, Element, ParentNode } from 'domhandler';
import { cleanHtml, toFragment } from './clean/clean-html.js';
import { removeBase64Images } from './clean/remove-base64-images.js';
import { resolveBaseUrl } from './clean/resolve-urls.js';
import { excludeTags, includeTags } from './clean/select-tags.js';
import { extractMainContent } from './main-content/extract-main-content.js';
import { parseHtml } from './dom/parse-html.js';
import { serializeHtml } from './dom/serialize-html.js';
import { htmlToMarkdown } from './markdown/index.js';
import { extractImages, extractLinks, metadataElements, metadataOfElements, type PageMetadata } from './metadata/index.js';

/** Output formats the pipeline can produce; each is computed only when requested. */
export interface HtmlPipelineFormats {
  /** Markdown of the (main) content. */
  markdown?: boolean;
  /** Cleaned HTML of the (main) content: see cleanHtml. */
  html?: boolean;
  /** The input HTML, unchanged. */
  rawHtml?: boolean;
  /** Absolute URLs of the links of the whole page. */
  links?: boolean;
  /** Absolute URLs of the images of the whole page. */
  images?: boolean;
}

/** Options of {@link runHtmlPipeline}. */
export interface HtmlPipelineOptions {
  /** Final URL of the page (after redirects): base of relative URLs, unless the page has `<base href>`. */
  url: string;
  /** Formats to produce. */
  formats: HtmlPipelineFormats;
  /** Keep only the main content for `html` and `markdown`. Default true. Ignored when includeTags is set. */
  onlyMainContent?: boolean;
  /** CSS selectors; when non-empty only matching elements (document order) are kept. */
  includeTags?: readonly string[];
  /** CSS selectors of elements to remove. */
  excludeTags?: readonly string[];
  /** Replace `data:` image URLs with a placeholder in `markdown` (not in `html`). Default true. */
  removeBase64Images?: boolean;
}

/** What {@link runHtmlPipeline} produced; a format key is present only when it was requested. */
export interface HtmlPipelineResult {
  markdown?: string;
  html?: string;
  rawHtml?: string;
  links?: string[];
  images?: string[];
  /** Page metadata (always present). */
  metadata: PageMetadata;
  /** Milliseconds spent in each step that ran, by step name. */
  timings: Record<string, number>;
  /** Problems that did not stop the pipeline, e.g. an unparsable selector in includeTags. */
  warnings?: string[];
}

interface PipelineState {
  opts: HtmlPipelineOptions;
  doc: Document;
  /** The elements metadata reads, collected by the parse. */
  metadataElements: readonly Element[];
  baseUrl: string;
  /** Current content root for html/markdown; replaced by the include and main-content steps. */
  content: ParentNode;
  result: HtmlPipelineResult;
}

type Step = { name: string; when: (s: PipelineState) => boolean; run: (s: PipelineState) => void };

const wantsContent = (s: PipelineState): boolean => s.opts.formats.html === true || s.opts.formats.markdown === true;
const hasInclude = (s: PipelineState): boolean => (s.opts.includeTags ?? []).some((t) => t.trim() !== '');

function warn(s: PipelineState, invalid: string[], option: string): void {
  if (invalid.length === 0) return;
  (s.result.warnings ??= []).push(`${option}: ignored invalid selector(s) ${invalid.map((x) => JSON.stringify(x)).join(', ')}`);
}

/**
 * The steps, in order. Links, images and metadata read the whole page before any cleaning; the
 * `html` format is serialized before base64 images are removed because that option affects markdown
 * only.
 */
const STEPS: readonly Step[] = [
  { name: 'metadata', when: () => true, run: (s) => { s.result.metadata = metadataOfElements(s.metadataElements, { url: s.opts.url }); } },
  { name: 'links', when: (s) => s.opts.formats.links === true, run: (s) => { s.result.links = extractLinks(s.doc, s.opts.url); } },
  { name: 'images', when: (s) => s.opts.formats.images === true, run: (s) => { s.result.images = extractImages(s.doc, s.opts.url); } },
  { name: 'clean', when: wantsContent, run: (s) => { s.content = cleanHtml(s.doc, { baseUrl: s.baseUrl }); } },
  {
    name: 'includeTags',
    when: (s) => wantsContent(s) && hasInclude(s),
    run: (s) => {
      const r = includeTags(s.content, s.opts.includeTags ?? []);
      s.content = r.root as ParentNode;
      warn(s, r.invalidSelectors, 'includeTags');
    },
  },
  {
    name: 'excludeTags',
    when: (s) => wantsContent(s) && (s.opts.excludeTags ?? []).length > 0,
    run: (s) => warn(s, excludeTags(s.content, s.opts.excludeTags ?? []).invalidSelectors, 'excludeTags'),
  },
  {
    // An explicit includeTags selection is what the caller asked for; scoring it again could drop it.
    name: 'mainContent',
    when: (s) => wantsContent(s) && s.opts.onlyMainContent !== false && !hasInclude(s),
    run: (s) => { s.content = extractMainContent(s.content).root; },
  },
  { name: 'serialize', when: (s) => s.opts.formats.html === true, run: (s) => { s.result.html = serializeContent(s.content); } },
  {
    name: 'removeBase64Images',
    when: (s) => s.opts.formats.markdown === true && s.opts.removeBase64Images !== false,
    run: (s) => removeBase64Images(s.content),
  },
  {
    name: 'markdown',
    when: (s) => s.opts.formats.markdown === true,
    run: (s) => { s.result.markdown = htmlToMarkdown(toFragment(s.content) as AnyNode, { baseUrl: s.baseUrl }); },
  },
];

/** Serializes the children of the content root (a fragment: no html/head/body wrapper). */
function serializeContent(content: ParentNode): string {
  return serializeHtml(content.children).trim();
}

/**
 * Runs the HTML pipeline on one page: parse once, then metadata, links, images, clean, include/exclude
 * tags, main content, html serialization, markdown; each step is timed in `timings`. Only the
 * requested formats appear in the result; metadata always does. Pure: no I/O.
 */
export function runHtmlPipeline(rawHtml: string, opts: HtmlPipelineOptions): HtmlPipelineResult {
  const timings: Record<string, number> = {};
  let t0 = performance.now();
  const found: Element[] = [];
  const doc = parseHtml(rawHtml, { collect: metadataElements(found) });
  const baseUrl = resolveBaseUrl(doc, opts.url);
  timings['parse'] = performance.now() - t0;
  const state: PipelineState = {
    opts,
    doc,
    metadataElements: found,
    baseUrl,
    content: doc,
    // `metadata` is filled by the first step, which always runs.
    result: { timings } as HtmlPipelineResult,
  };
  if (opts.formats.rawHtml === true) state.result.rawHtml = rawHtml;
  for (const step of STEPS) {
    if (!step.when(state)) continue;
    t0 = performance.now();
    step.run(state);
    timings[step.name] = performance.now() - t0;
  }
  return state.result;
}
