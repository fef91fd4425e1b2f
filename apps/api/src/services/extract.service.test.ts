import { describe, expect, it } from '@jest/globals';
import { extractRequestSchema } from '@trawl/api-schema';
import type { Team } from '@trawl/queue';
import { ExtractService, splitUrls, type ExtractServiceDeps } from './extract.service.js';

describe('splitUrls', () => {
  it('keeps valid URLs (normalized), a trailing /* as the whole site, and lists invalid ones as given', () => {
    expect(splitUrls(['https://a.test/page', 'b.test/docs/*', 'https://c.test/*', 'ftp://x.test/', 'not a url', 'https://d.test//*'])).toEqual({
      valid: ['https://a.test/page', 'http://b.test/docs/*', 'https://c.test/*', 'https://d.test/*'],
      invalid: ['ftp://x.test/', 'not a url'],
    });
  });
});

describe('ExtractService.start without web search', () => {
  // Refused before any dependency is used: only the flags matter.
  const service = (webSearch: boolean) => new ExtractService({ webSearch, llmConfigured: true, capabilities: new Set(), webhookAllowPrivate: false, retentionSec: 60 } as unknown as ExtractServiceDeps);
  const team = { id: 'team' } as Team;

  it('refuses enableWebSearch and extracts without urls with 400 UNSUPPORTED_OPTION naming the option', async () => {
    const request = (body: Record<string, unknown>) => extractRequestSchema.parse({ prompt: 'p', ...body });
    await expect(service(false).start(team, request({ urls: ['https://a.test/'], enableWebSearch: true })))
      .rejects.toMatchObject({ code: 'UNSUPPORTED_OPTION', details: { option: 'enableWebSearch', capability: 'search' } });
    await expect(service(false).start(team, request({}))).rejects.toMatchObject({ code: 'UNSUPPORTED_OPTION', details: { option: 'urls' } });
  });
});
