import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FixtureSite, waitFor } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';

// TRAWL_RESULT_COMPRESSION=true end to end: a sync scrape answered through the results channel (a
// gateway and worker as separate parts) and one handed over in-process (embedded mode), both stored
// compressed and read back by GET /v2/scrape/:id.
let cluster: TestCluster;
let site: FixtureSite;
const paragraph = 'Un paragraphe assez long pour que le résultat dépasse deux mille caractères de JSON. ';

beforeAll(async () => {
  site = new FixtureSite().page('/long', `<html><head><title>Long</title></head><body><main>${`<p>${paragraph.repeat(4)}</p>`.repeat(12)}</main></body></html>`);
  await site.start();
  cluster = await TestCluster.start({ TRAWL_RESULT_COMPRESSION: 'true' });
});
afterAll(async () => {
  await cluster.stop();
  await site.stop();
}, 30_000);

/** A scrape of the long page, its stored result's first bytes, and GET /v2/scrape/:id of it. */
async function scrapeAndReadBack(): Promise<{ markdown: string; head: number[]; again: string }> {
  const res = await cluster.call('POST', '/v2/scrape', { body: { url: site.url('/long'), formats: ['markdown'], maxAge: 0 } });
  expect(res.status).toBe(200);
  const data = (res.body as { data: { markdown: string; metadata: { scrapeId: string } } }).data;
  const key = `${cluster.env.TRAWL_REDIS_PREFIX ?? 'trawl'}:result:${data.metadata.scrapeId}`;
  const raw = await waitFor(() => cluster.redis.getBuffer(key), { timeoutMs: 5000, what: 'the stored result' });
  const got = await cluster.call('GET', `/v2/scrape/${data.metadata.scrapeId}`);
  expect(got.status).toBe(200);
  return { markdown: data.markdown, head: [...raw.subarray(0, 2)], again: (got.body as { data: { markdown: string } }).data.markdown };
}

describe('compressed stored results', () => {
  it('a scrape answered through the results channel is stored compressed and read back whole', async () => {
    const { markdown, head, again } = await scrapeAndReadBack();
    expect(markdown).toContain('Un paragraphe assez long');
    expect(head).toEqual([0xff, 0x01]);
    expect(again).toBe(markdown);
  });

  it('so is one handed over in-process (embedded mode)', async () => {
    const worker = cluster.worker!;
    cluster.api.runLocally(worker.localRunner, { results: worker.results, pageCache: worker.pageCache });
    try {
      const { markdown, head, again } = await scrapeAndReadBack();
      expect(head).toEqual([0xff, 0x01]);
      expect(again).toBe(markdown);
    } finally {
      cluster.api.runLocally(undefined, { results: worker.results, pageCache: worker.pageCache });
    }
  });
});
