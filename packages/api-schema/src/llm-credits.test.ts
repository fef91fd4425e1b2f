import { describe, expect, it } from '@jest/globals';
import { llmFormatCredits } from './llm-credits.js';
import { scrapeRequestSchema } from './scrape-request.js';

const parse = (body: Record<string, unknown>) => scrapeRequestSchema.parse({ url: 'https://example.com', ...body });

describe('llmFormatCredits', () => {
  it('counts 4 for each LLM format and option, nothing for the others', () => {
    const request = parse({
      formats: ['markdown', 'summary', { type: 'json', prompt: 'x' }, { type: 'question', question: 'q?' }, { type: 'changeTracking', modes: ['json'] }],
      onlyCleanContent: true,
    });
    expect(llmFormatCredits(request, { llmConfigured: true })).toBe(20);
    expect(llmFormatCredits(parse({ formats: ['markdown', 'links', { type: 'changeTracking', modes: ['git-diff'] }] }), { llmConfigured: true })).toBe(0);
  });

  it('charges highlights only when an LLM picks them (lexical ranking is free)', () => {
    const request = parse({ formats: [{ type: 'highlights', query: 'price' }] });
    expect(llmFormatCredits(request, { llmConfigured: true })).toBe(4);
    expect(llmFormatCredits(request, { llmConfigured: false })).toBe(0);
  });

  it('counts only the given capabilities: the transformers\' shares add up to the total', () => {
    const request = parse({ formats: [{ type: 'json', prompt: 'x' }, 'summary', { type: 'changeTracking', modes: ['json', 'git-diff'] }] });
    expect(llmFormatCredits(request, { llmConfigured: true, only: ['json'] })).toBe(4);
    expect(llmFormatCredits(request, { llmConfigured: true, only: ['changeTracking:json'] })).toBe(4);
    expect(llmFormatCredits(request, { llmConfigured: true, only: ['changeTracking'] })).toBe(0);
    expect(llmFormatCredits(request, { llmConfigured: true })).toBe(12);
  });
});
