export { RedisServerFixture } from './redis-server.js';
export { redisPerFile, type FileRedis } from './redis-per-file.js';
export { FixtureSite, type FixtureHandler } from './fixture-site.js';
export { FakeDnsServer, type FakeDnsName, type FakeDnsQuery } from './fake-dns-server.js';
export { FakeS3Server, type FakeS3Object, type FakeS3ServerOptions } from './fake-s3-server.js';
export { ForwardProxyFixture, type ForwardProxyOptions, type ForwardProxyRequest } from './forward-proxy.js';
export { GeneratedSite, type ReachableOptions, type ServedPage } from './generated-site.js';
export type { GeneratedRobots, GeneratedSiteOptions } from './site-graph.js';
export { buildPdf, type BuildPdfOptions, type PdfTextLine } from './pdf-writer.js';
export { waitFor, type Truthy, type WaitForOptions } from './wait-for.js';
export { MapResolver, startServer, type LocalServer, type ResolvedAddress } from './local-server.js';
export {
  startFakeChatCompletions, type FakeChatMode, type FakeChatOptions, type FakeChatRequest, type FakeChatServer,
} from './fake-chat-completions.js';
export {
  startFakeSearxng, type FakeSearxngMode, type FakeSearxngOptions, type FakeSearxngRequest, type FakeSearxngServer, type SearxngResult,
} from './fake-searxng.js';
export { startFakeBrave, type FakeBraveMode, type FakeBraveOptions, type FakeBraveRequest, type FakeBraveServer } from './fake-brave.js';
export {
  FAKE_DDG_VQD, startFakeDuckDuckGo, type FakeDuckDuckGoMode, type FakeDuckDuckGoOptions, type FakeDuckDuckGoRequest, type FakeDuckDuckGoServer,
} from './fake-duckduckgo.js';
export { RedisClusterFixture } from './redis-cluster.js';
export { RedisSentinelFixture } from './redis-sentinel.js';
export { RedisMonitor, parseMonitorLine, type MonitoredCommand } from './redis-monitor.js';
export { corpusDirs, htmlFilesUnder } from './corpus-files.js';
