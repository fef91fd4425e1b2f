import { describe, expect, it } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApiDocument } from './openapi.js';

describe('buildOpenApiDocument', () => {
  const doc = buildOpenApiDocument({ serverUrl: 'https://trawl.example.com' });

  it('is an OpenAPI 3.1 document valid against the official schema', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(JSON.parse(JSON.stringify(doc)) as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('registers the v2 and admin routes', () => {
    expect(Object.keys(doc.paths ?? {}).sort()).toEqual([
      '/admin/keys/{key}',
      '/admin/teams',
      '/admin/teams/{id}',
      '/admin/teams/{id}/keys',
      '/v2/batch/scrape',
      '/v2/batch/scrape/{id}',
      '/v2/batch/scrape/{id}/errors',
      '/v2/concurrency-check',
      '/v2/crawl',
      '/v2/crawl/active',
      '/v2/crawl/ongoing',
      '/v2/crawl/params-preview',
      '/v2/crawl/{id}',
      '/v2/crawl/{id}/errors',
      '/v2/extract',
      '/v2/extract/{id}',
      '/v2/map',
      '/v2/monitor',
      '/v2/monitor/{id}',
      '/v2/monitor/{id}/checks',
      '/v2/monitor/{id}/checks/{checkId}',
      '/v2/monitor/{id}/run',
      '/v2/parse',
      '/v2/parse/upload-url',
      '/v2/parse/uploads/{ref}',
      '/v2/scrape',
      '/v2/scrape/{id}',
      '/v2/search',
      '/v2/team/credit-usage',
      '/v2/team/credit-usage/historical',
      '/v2/team/queue-status',
      '/v2/team/token-usage',
      '/v2/team/token-usage/historical',
    ]);
    expect(Object.keys(doc.paths?.['/admin/teams/{id}'] ?? {}).sort()).toEqual(['get', 'patch']);
    expect(Object.keys(doc.paths?.['/v2/crawl/{id}'] ?? {}).sort()).toEqual(['delete', 'get']);
    expect(Object.keys(doc.paths?.['/v2/monitor/{id}'] ?? {}).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(doc.paths?.['/v2/monitor'] ?? {}).sort()).toEqual(['get', 'post']);
  });

  it('declares bearer auth, servers and every error status', () => {
    expect(doc.components?.securitySchemes?.['bearerAuth']).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.servers).toEqual([{ url: 'https://trawl.example.com' }]);
    const responses = doc.paths?.['/v2/scrape']?.post?.responses ?? {};
    expect(Object.keys(responses).sort()).toEqual(['200', '400', '401', '402', '404', '408', '413', '429', '500']);
    expect(JSON.stringify(responses['429'])).toContain('#/components/schemas/ErrorResponse');
  });

  it('documents the large-file parse flow: upload URL, the unauthenticated PUT, the JSON parse body', () => {
    expect(doc.paths?.['/v2/parse/upload-url']?.post?.security).toEqual([{ bearerAuth: [] }]);
    const put = doc.paths?.['/v2/parse/uploads/{ref}']?.put;
    expect(put?.security).toEqual([]);
    expect(Object.keys(put?.responses ?? {}).sort()).toEqual(['200', '403', '404', '409', '413']);
    const parseBody = doc.paths?.['/v2/parse']?.post?.requestBody as { content?: Record<string, unknown> } | undefined;
    expect(Object.keys(parseBody?.content ?? {}).sort()).toEqual(['application/json', 'multipart/form-data']);
    const schemas = doc.components?.schemas ?? {};
    for (const name of ['ParseUploadUrlRequest', 'ParseUploadUrlResponse', 'ParseUploadRequest', 'ParseUploadPutResponse']) expect(schemas).toHaveProperty(name);
    expect(JSON.stringify(schemas['ParseUploadRequest'])).toContain('"uploadRef"');
  });

  it('holds the component schemas with their defaults and limits', () => {
    const schemas = doc.components?.schemas ?? {};
    for (const name of ['ScrapeRequest', 'ScrapeOptions', 'Document', 'DocumentMetadata', 'ErrorResponse', 'Action', 'Team']) {
      expect(schemas).toHaveProperty(name);
    }
    const text = JSON.stringify(schemas['ScrapeRequest']);
    expect(text).toContain('"timeout":{"type":"integer","minimum":1000,"maximum":300000,"default":60000}');
    expect(text).toContain('"additionalProperties":false');
    expect(JSON.stringify(schemas['Location'])).toContain('^[A-Z]{2}$');
  });

  it('is deterministic JSON', () => {
    const again = JSON.stringify(buildOpenApiDocument({ serverUrl: 'https://trawl.example.com' }));
    expect(again).toBe(JSON.stringify(doc));
    expect(JSON.parse(again)).toEqual(doc);
    expect(buildOpenApiDocument().servers).toBeUndefined();
  });
});
