export {
  LlmError, addUsage, NO_USAGE,
  type Llm, type LlmFeature, type JsonSchema, type LlmUsage, type LlmCallOptions, type StructuredRequest,
  type StructuredResult, type TextRequest, type TextResult, type LlmErrorKind, type LlmCallEvent, type LlmObserver,
} from './types.js';
export { ChatCompletionsLlm, type LlmClientSettings, type LlmLogger } from './chat-client.js';
export { estimateTokens } from './tokens.js';
export { chunkMarkdown, type ChunkOptions } from './chunk-markdown.js';
export { mergeExtractions, type MergeResult } from './merge-extractions.js';
export { splitUnits, type TextUnit } from './text-units.js';
export { rankByQuery } from './lexical-rank.js';
export { extractJson, type ExtractJsonRequest, type ExtractJsonResult } from './tasks/extract-json.js';
export { summarize } from './tasks/summarize.js';
export { answerQuestion, NOT_IN_PAGE_ANSWER } from './tasks/answer-question.js';
export { pickHighlights } from './tasks/pick-highlights.js';
export { cleanContent } from './tasks/clean-content.js';
export { compareVersions } from './tasks/compare-versions.js';
export { deriveCrawlOptions, CrawlPromptError, type CrawlPromptOptions } from './tasks/derive-crawl-options.js';
