import { jest } from '@jest/globals';
import { TargetGuard } from '@trawl/net-guard';
import { EgressProxy } from '@trawl/scrape-engine';
import { fetcherConformance } from '@trawl/testing/fetcher-conformance';
import { BrowserFetcher } from './browser-fetcher.js';
import { BrowserPool } from './browser-pool.js';

jest.setTimeout(30_000);

// The shared Fetcher contract (packages/testing/src/fetcher-conformance.ts), run against the browser
// engine as production wires it: every connection through the egress proxy and its target guard.
// One browser for the whole file.
fetcherConformance('BrowserFetcher', async ({ exemptAddresses, resolver }) => {
  const egress = new EgressProxy({ guard: new TargetGuard({ exemptAddresses, resolver }) });
  await egress.start();
  const pool = new BrowserPool();
  const browser = new BrowserFetcher({ pool, egress, smartWaitMaxMs: 1000 });
  return {
    // The browser also takes the job's remaining time; the suite's fetches finish long before it.
    fetcher: { name: browser.name, fetch: (req) => browser.fetch({ ...req, timeoutMs: 20_000 }) },
    async close() {
      await pool.close();
      await egress.close();
    },
  };
}, { rendersHtml: true });
