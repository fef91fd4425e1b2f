import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { FixtureSite, startFakeSearxng, type FakeSearxngServer, type SearxngResult } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';

jest.setTimeout(90_000);

/**
 * The official Firecrawl MCP server (npm `firecrawl-mcp`, unmodified, pinned in the root package.json)
 * pointed at the cluster with `FIRECRAWL_API_URL`/`FIRECRAWL_API_KEY`, spoken to over stdio with the
 * official MCP client: its search tool against the production SearXNG provider (a local fake) and
 * its scrape tool against a local site. With `sources` unset (what a model usually sends), 3.26.0 asks
 * for `['web', 'alexandria']` (hosted tool discovery): the hosted-only source is dropped with a warning.
 */
const ROOT = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const MCP_SERVER = join(ROOT, 'node_modules', 'firecrawl-mcp', 'dist', 'index.js');
/** Per MCP request; the server answers long before this unless something is wrong (then the test fails, not hangs). */
const CALL = { timeout: 60_000 };

let cluster: TestCluster;
let searxng: FakeSearxngServer;
let site: FixtureSite;
let client: Client;
let transport: StdioClientTransport;
const html = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body><p>${body}</p></body></html>`;

function resultsFor(q: string): SearxngResult[] {
  const r = (url: string, title: string): SearxngResult => ({ url, title, content: `About ${title}` });
  if (q.startsWith('pages')) return [r(site.url('/a'), 'Page A'), r(site.url('/b'), 'Page B')];
  return Array.from({ length: 5 }, (_, i) => r(`https://example.com/mcp/${i + 1}`, `MCP result ${i + 1}`));
}

beforeAll(async () => {
  site = new FixtureSite().page('/a', html('Page A', 'Alpha text')).page('/b', html('Page B', 'Beta text')).page('/doc', html('Doc', 'Scraped through MCP'));
  await site.start();
  searxng = await startFakeSearxng({ results: (req) => resultsFor(req.q) });
  cluster = await TestCluster.start({ TRAWL_SEARXNG_URL: searxng.baseUrl });
  const team = await cluster.team({ concurrency: 4 });
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [MCP_SERVER],
    env: { PATH: process.env.PATH ?? '', FIRECRAWL_API_URL: cluster.api.url, FIRECRAWL_API_KEY: team.key },
    stderr: 'pipe',
  });
  client = new Client({ name: 'trawl-conformance', version: '0.0.0' });
  await client.connect(transport, CALL);
});

afterAll(async () => {
  // Closing the transport ends the server's stdin and kills the child if it does not exit.
  await client?.close();
  await transport?.close();
  await cluster?.stop();
  await searxng?.close();
  await site?.stop();
});

type ToolResult = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: unknown };

async function call(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, CALL)) as ToolResult;
}

/** The tool's JSON answer (its text content), failing with the server's message on a tool error. */
function json<T>(res: ToolResult): T {
  const text = res.content.find((c) => c.type === 'text')?.text ?? '';
  if (res.isError) throw new Error(`tool error: ${text}`);
  return JSON.parse(text) as T;
}

type SearchAnswer = { success: boolean; data: { web: { url: string; title: string; description?: string; position: number; markdown?: string }[] } };

describe('official Firecrawl MCP server (firecrawl-mcp)', () => {
  it('lists its search and scrape tools', async () => {
    const { tools } = await client.listTools(undefined, CALL);
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['firecrawl_search', 'firecrawl_scrape']));
    const search = tools.find((t) => t.name === 'firecrawl_search')!;
    expect(Object.keys(search.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['query', 'limit', 'sources', 'scrapeOptions']));
  });

  it('firecrawl_search returns the provider results', async () => {
    // No `sources`: the server then asks for the hosted-only `alexandria` too.
    const res = json<SearchAnswer>(await call('firecrawl_search', { query: 'trawl', limit: 3 }));
    expect(res.success).toBe(true);
    expect(res.data.web).toEqual([
      expect.objectContaining({ url: 'https://example.com/mcp/1', title: 'MCP result 1', description: 'About MCP result 1', position: 1 }),
      expect.objectContaining({ url: 'https://example.com/mcp/2', title: 'MCP result 2', position: 2 }),
      expect.objectContaining({ url: 'https://example.com/mcp/3', title: 'MCP result 3', position: 3 }),
    ]);
  });

  it('firecrawl_search with scrapeOptions returns the results with their markdown', async () => {
    const res = json<SearchAnswer>(await call('firecrawl_search', { query: 'pages', limit: 2, sources: ['web'], scrapeOptions: { formats: ['markdown'] } }));
    const [a, b] = res.data.web;
    expect(a).toMatchObject({ url: site.url('/a'), title: 'Page A', position: 1 });
    expect(a?.markdown).toContain('Alpha text');
    expect(b).toMatchObject({ url: site.url('/b'), title: 'Page B', position: 2 });
    expect(b?.markdown).toContain('Beta text');
  });

  it('firecrawl_scrape returns the page markdown', async () => {
    const res = json<unknown>(await call('firecrawl_scrape', { url: site.url('/doc'), formats: ['markdown'] }));
    expect(JSON.stringify(res)).toContain('Scraped through MCP');
  });
});
