import { fetcherConformance } from '@trawl/testing/fetcher-conformance';
import { HttpFetcher } from './http-fetcher.js';

// The shared Fetcher contract (packages/testing/src/fetcher-conformance.ts), run against the http engine.
fetcherConformance('HttpFetcher', async ({ exemptAddresses, resolver }) => {
  const fetcher = new HttpFetcher({ exemptAddresses, resolver });
  return { fetcher, close: () => fetcher.close() };
});
