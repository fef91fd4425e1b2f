import type { ScrapeRequest } from '@trawl/api-schema';
import type { HtmlPipelineFormats } from '@trawl/html';
import type { Llm } from '@trawl/llm';
import type { ChangeTracker } from '../change-tracking.js';
import { attributesTransformer } from './attributes.transformer.js';
import { changeTrackingTransformer } from './change-tracking.transformer.js';
import { cleanContentTransformer } from './clean-content.transformer.js';
import { highlightsTransformer } from './highlights.transformer.js';
import { htmlTransformer } from './html.transformer.js';
import { imagesTransformer } from './images.transformer.js';
import { jsonTransformer } from './json.transformer.js';
import { linksTransformer } from './links.transformer.js';
import { markdownTransformer } from './markdown.transformer.js';
import { pagesTransformer } from './pages.transformer.js';
import { questionTransformer } from './question.transformer.js';
import { rawBase64Transformer } from './raw-base64.transformer.js';
import { rawHtmlTransformer } from './raw-html.transformer.js';
import { screenshotTransformer } from './screenshot.transformer.js';
import { summaryTransformer } from './summary.transformer.js';
import { transformerApplies, type DocumentTransformer } from './transformer.js';

export { transformerApplies, type DocumentTransformer, type TransformInput, type TransformerNeed } from './transformer.js';

/** What the transformers are built with. */
export interface TransformerDeps {
  changes: ChangeTracker;
  /** The configured LLM; undefined when none is (LLM formats are then null with a warning, highlights lexical). */
  llm?: Llm;
}

/**
 * Every document transformer, in the order the pipeline runs them. A new format is one new
 * `<name>.transformer.ts` here and one line in this list: formats read from the page first, then
 * the ones reading other formats (LLM formats, redaction), change tracking last. onlyCleanContent
 * comes right after markdown: it replaces the markdown every later format reads.
 */
export function documentTransformers(deps: TransformerDeps): readonly DocumentTransformer[] {
  return [
    markdownTransformer,
    cleanContentTransformer(deps.llm),
    htmlTransformer,
    rawHtmlTransformer,
    linksTransformer,
    imagesTransformer,
    attributesTransformer,
    rawBase64Transformer,
    pagesTransformer,
    screenshotTransformer,
    jsonTransformer(deps.llm),
    summaryTransformer(deps.llm),
    questionTransformer(deps.llm),
    highlightsTransformer(deps.llm),
    changeTrackingTransformer(deps.changes, deps.llm),
  ];
}

/** The transformers a request asks for, in order. */
export function transformersFor(all: readonly DocumentTransformer[], request: ScrapeRequest): DocumentTransformer[] {
  return all.filter((t) => transformerApplies(t, request));
}

/** What the HTML pipeline must produce for these transformers. */
export function convertsOf(transformers: readonly DocumentTransformer[]): HtmlPipelineFormats {
  const out: HtmlPipelineFormats = {};
  for (const t of transformers) for (const [k, v] of Object.entries(t.converts ?? {})) if (v) out[k as keyof HtmlPipelineFormats] = true;
  return out;
}
