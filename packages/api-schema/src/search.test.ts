import { describe, expect, it } from '@jest/globals';
import { ignoredOptionsOf, ignoredOptionsWarning } from './ignored-options.js';
import { searchRequestSchema } from './search.js';

describe('searchRequestSchema', () => {
  it('drops the hosted-only sources the MCP server asks for by default, and names them in the warning', () => {
    const body = { query: 'q', sources: ['web', 'alexandria'] };
    expect(searchRequestSchema.parse(body).sources).toEqual(['web']);
    expect(ignoredOptionsWarning(ignoredOptionsOf('search', body))).toContain('sources[1] (alexandria)');
    expect(searchRequestSchema.parse({ query: 'q', sources: [{ type: 'exchange' }, 'news'] }).sources).toEqual(['news']);
  });

  it('asks for web when only hosted-only sources were given', () => {
    expect(searchRequestSchema.parse({ query: 'q', sources: ['alexandria'] }).sources).toEqual(['web']);
  });

  it('still refuses an unknown source and an empty list', () => {
    expect(searchRequestSchema.safeParse({ query: 'q', sources: ['gopher'] }).success).toBe(false);
    expect(searchRequestSchema.safeParse({ query: 'q', sources: [] }).success).toBe(false);
  });

  it('defaults to web', () => {
    expect(searchRequestSchema.parse({ query: 'q' }).sources).toEqual(['web']);
  });
});
