// A real Prometheus scrapes a running cluster (API and worker in this process, real redis-server),
// loads the repository's rule files and answers the dashboard's queries: the rules and panels are
// checked against what the code really exports, with real values.
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { QUEUE_NAMES } from '@trawl/queue';
import { FixtureSite, GeneratedSite } from '@trawl/testing';
import { TestCluster } from './helpers/cluster.js';
import { watchCrawl } from './helpers/crawl-watch.js';
import { dashboardTargets, exportedMetrics, isExportedSeries, loadDashboard, RULE_FILES, type MetricType } from './helpers/prometheus-metrics.js';
import { PrometheusServer, type Sample } from './helpers/prometheus-server.js';

jest.setTimeout(30_000);

let cluster: TestCluster;
let prometheus: PrometheusServer;
let site: FixtureSite;
let crawlSite: GeneratedSite;
let team: { id: string; key: string };
let exported: Map<string, MetricType>;
let releaseGate: () => void = () => undefined;
const gate = new Promise<void>((resolve) => (releaseGate = resolve));

const byLabel = (samples: Sample[], label: string) => Object.fromEntries(samples.map((s) => [s.metric[label] ?? '', s.value]));

beforeAll(async () => {
  site = new FixtureSite()
    .page('/article', '<html><head><title>Article</title></head><body><main><p>Enough words to be the content of this page.</p></main></body></html>')
    .page('/doc.pdf', '%PDF-1.4\n1 0 obj<<>>endobj\n%%EOF', 'application/pdf')
    .route('/gate', async (_req, res) => {
      await gate;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body><p>Released.</p></body></html>');
    });
  await site.start();
  crawlSite = await GeneratedSite.start({ pages: 5, branching: 2, sitemap: 'none' });
  cluster = await TestCluster.start({ TRAWL_CRAWL_HOST_RATE_PER_SEC: '0', TRAWL_CRAWL_WATCH_INTERVAL_MS: '300' });
  // A maxmemory makes the usage ratio rule produce a series (0 means no limit: no ratio).
  await cluster.redis.config('SET', 'maxmemory', String(1024 ** 3));
  team = await cluster.team({ concurrency: 4 });
  exported = await exportedMetrics();
  prometheus = await PrometheusServer.start({
    jobs: {
      'trawl-api': [new URL(cluster.api.url).host],
      'trawl-worker': [`127.0.0.1:${cluster.worker!.metricsPort}`],
    },
    ruleFiles: RULE_FILES,
  });
  await prometheus.untilQuery('up{job=~"trawl-api|trawl-worker"} == 1', (s) => s.length === 2);
});

afterAll(async () => {
  releaseGate();
  await prometheus?.stop();
  await cluster?.stop();
  await crawlSite?.close();
  await site?.stop();
}, 30_000);

// maxAge 0: every scrape is a worker job (a repeated one would otherwise be a cache hit answered by the gateway)
const scrape = (path: string) => cluster.call('POST', '/v2/scrape', { key: team.key, body: { url: site.url(path), maxAge: 0 } });

describe('a Prometheus scraping a cluster', () => {
  it('sees a running job hold a concurrency slot and a worker, then give both back', async () => {
    const running = scrape('/gate');
    await prometheus.untilQuery('trawl:concurrency_slots:max{state="active"} >= 1', (s) => s.length === 1);
    await prometheus.untilQuery('trawl:jobs_in_flight:sum{queue="scrape"} >= 1', (s) => s.length === 1);
    releaseGate();
    expect((await running).status).toBe(200);
    const slots = await prometheus.untilQuery('trawl:concurrency_slots:max', (s) => s.length === 2 && s.every((x) => x.value === 0));
    expect(byLabel(slots, 'state')).toEqual({ active: 0, backlogged: 0 });
    await prometheus.untilQuery('trawl:jobs_in_flight:sum{queue="scrape"} == 0', (s) => s.length === 1);
  });

  it('counts jobs by outcome, requests by route, and the rates of the recording rules', async () => {
    for (let i = 0; i < 3; i++) expect((await scrape('/article')).status).toBe(200);
    expect((await scrape('/doc.pdf')).body.code).toBe('SCRAPE_UNSUPPORTED_CONTENT');
    const start = await cluster.call('POST', '/v2/crawl', { key: team.key, body: { url: crawlSite.url('/'), sitemap: 'skip' } });
    expect(start.status).toBe(200);
    const stream = await watchCrawl(cluster, start.body.id as string, { key: team.key });
    expect(stream.final?.status).toBe('completed');
    const pages = stream.final!.completed;
    expect(pages).toBe(crawlSite.reachable().length);

    // the gate scrape, three articles and the crawl's pages succeeded; the PDF failed (no documents role)
    const outcomes = await prometheus.untilQuery('sum by (outcome) (trawl_job_duration_seconds_count{queue="scrape"})', (s) => byLabel(s, 'outcome').success === 4 + pages);
    expect(byLabel(outcomes, 'outcome')).toEqual({ success: 4 + pages, SCRAPE_UNSUPPORTED_CONTENT: 1 });
    const crawlPages = await prometheus.untilQuery('sum by (outcome) (trawl_crawl_pages_done_total{kind="crawl"})', (s) => byLabel(s, 'outcome').document === pages);
    expect(byLabel(crawlPages, 'outcome')).toEqual({ document: pages });
    await prometheus.untilQuery('trawl_crawls_ended_total{kind="crawl", status="completed"} == 1', (s) => s.length === 1);

    // rates: each series was scraped before its last increments, so its rate is above 0
    const routes = await prometheus.untilQuery('sum by (route) (trawl:http_requests:rate5m)', (s) => (byLabel(s, 'route')['/v2/scrape'] ?? 0) > 0 && (byLabel(s, 'route')['/metrics'] ?? 0) > 0);
    expect(Object.keys(byLabel(routes, 'route'))).toContain('/admin/teams/:id/keys');
    // (a series that appeared with its only increment has a rate of 0 once scraped twice)
    const jobs = await prometheus.untilQuery('trawl:jobs:rate5m{queue="scrape"}', (s) => (byLabel(s, 'outcome').success ?? 0) > 0 && s.length === 2);
    expect(Object.keys(byLabel(jobs, 'outcome')).sort()).toEqual(['SCRAPE_UNSUPPORTED_CONTENT', 'success']);
    const done = await prometheus.untilQuery('trawl:crawl_pages_done:rate5m', (s) => s.length > 0);
    expect(done.map((s) => `${s.metric.kind} ${s.metric.outcome}`)).toEqual(['crawl document']);
    const ratio = await prometheus.untilQuery('trawl:job_errors:ratio_rate5m{queue="scrape"}', (s) => s.length === 1);
    expect(ratio[0]!.value).toBeGreaterThanOrEqual(0);
    expect(ratio[0]!.value).toBeLessThan(0.5);
    const p95 = await prometheus.untilQuery('trawl:job_duration_seconds:p95_rate5m{queue="scrape"}', (s) => s.length === 1);
    expect(p95[0]!.value).toBeGreaterThan(0);
    const serverErrors = await prometheus.untilQuery('trawl:http_server_errors:ratio_rate5m{route="/v2/scrape"}', (s) => s.length === 1);
    expect(serverErrors[0]!.value).toBe(0);
  });

  it('shows every queue by state, nothing left ready, no slot held, Redis up with its memory', async () => {
    const depth = await prometheus.untilQuery('count by (queue) (trawl:queue_jobs:max)', (s) => s.length === QUEUE_NAMES.length);
    expect(byLabel(depth, 'queue')).toEqual(Object.fromEntries(QUEUE_NAMES.map((q) => [q, 8])));
    const ready = await prometheus.untilQuery('trawl:queue_ready_jobs:max', (s) => s.length === QUEUE_NAMES.length && s.every((x) => x.value === 0));
    expect(ready.map((s) => s.metric.queue).sort()).toEqual([...QUEUE_NAMES].sort());
    await prometheus.untilQuery('trawl:queue_oldest_ready_seconds:max == 0', (s) => s.length === QUEUE_NAMES.length);
    await prometheus.untilQuery('trawl:concurrency_slots:max == 0', (s) => s.length === 2);
    // each process reports the same cluster gauge: two series, one recorded value
    expect(await prometheus.query('count(trawl_queue_ready_jobs{queue="scrape"})')).toEqual([{ metric: {}, value: 2 }]);
    expect(byLabel(await prometheus.query('trawl:redis_up:max'), 'redis')).toEqual({ queue: 1 });
    const usage = await prometheus.query('trawl:redis_memory_usage:ratio');
    expect(usage.map((s) => s.metric.redis)).toEqual(['queue']);
    expect(usage[0]!.value).toBeGreaterThan(0);
    expect(usage[0]!.value).toBeLessThan(0.8);
  });

  it('both targets are up, every rule evaluates without error and no alert fires', async () => {
    const up = await prometheus.query('up');
    expect(byLabel(up, 'job')).toEqual({ 'trawl-api': 1, 'trawl-worker': 1 });
    const rules = await prometheus.api<{ groups: { file: string; rules: { name: string; health: string; lastError?: string; type: string }[] }[] }>('/api/v1/rules');
    const all = rules.groups.flatMap((g) => g.rules);
    expect(all.length).toBeGreaterThan(30);
    expect(all.filter((r) => r.health !== 'ok')).toEqual([]);
    const firing = await prometheus.query('ALERTS{alertstate="firing"}');
    expect(firing.map((s) => s.metric.alertname)).toEqual([]);
  });

  it('every dashboard query runs; the main panels show data', async () => {
    const results = new Map<string, number>();
    for (const t of dashboardTargets(loadDashboard())) results.set(t.expr, (await prometheus.query(t.expr)).length);
    const mustShow = [
      'sum by (route) (trawl:http_requests:rate5m)',
      'trawl:http_request_duration_seconds:p95_rate5m',
      'trawl:queue_ready_jobs:max',
      'trawl:queue_jobs:max{state!~"completed|failed"}',
      'trawl:jobs:rate5m',
      'trawl:job_errors:ratio_rate5m',
      'trawl:job_duration_seconds:p95_rate5m',
      'trawl:concurrency_slots:max',
      'trawl:crawl_pages_done:rate5m',
      'max by (redis) (trawl_redis_memory_used_bytes)',
      'up{job=~"trawl-api|trawl-worker"}',
    ];
    expect(mustShow.filter((expr) => !((results.get(expr) ?? 0) > 0))).toEqual([]);
    expect(results.get('trawl:queue_ready_jobs:max')).toBe(QUEUE_NAMES.length);
  });

  it('every trawl_ series Prometheus stores is a metric the name check knows', async () => {
    const names = await prometheus.api<string[]>('/api/v1/label/__name__/values');
    const trawl = names.filter((n) => n.startsWith('trawl_'));
    expect(trawl.length).toBeGreaterThan(10);
    expect(trawl.filter((n) => !isExportedSeries(n, exported))).toEqual([]);
  });
});
