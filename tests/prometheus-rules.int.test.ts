// Static checks of the monitoring setup: infra/prometheus (rules, unit tests of the alerts, example
// config) and infra/grafana (dashboard, provisioning). promtool validates the PromQL; every metric a
// rule or a panel reads must be one the code exports (names collected from the sources and from a
// real registry's default metrics), and every recording rule read must be defined.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import YAML from 'yaml';
import {
  allPanels, dashboardTargets, exportedMetrics, isExportedSeries, loadDashboard, loadRules, metricNamesIn, PROMETHEUS_DIR,
  requireBinary, ROOT, RULE_FILES, run, sourceMetrics, type GrafanaPanel, type MetricType, type Rule,
} from './helpers/prometheus-metrics.js';

const [RECORDING_FILE, ALERTS_FILE] = RULE_FILES as [string, string];
const recording = loadRules(RECORDING_FILE);
const alerts = loadRules(ALERTS_FILE);
const recorded = new Set(recording.map((r) => r.record!));
const dashboard = loadDashboard();
const UNIT_TESTS = readdirSync(join(PROMETHEUS_DIR, 'tests')).filter((f) => f.endsWith('.yml')).map((f) => join(PROMETHEUS_DIR, 'tests', f));

let promtool: string;
let exported: Map<string, MetricType>;
let tmp: string;

beforeAll(async () => {
  promtool = requireBinary('promtool');
  exported = await exportedMetrics();
  tmp = mkdtempSync(join(tmpdir(), 'trawl-promtool-'));
});
afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Names an expression reads that the code does not export or the recording rules do not define. */
function unknownNames(expr: string): string[] {
  return metricNamesIn(expr).filter((name) => (name.includes(':') ? !recorded.has(name) : !isExportedSeries(name, exported)));
}

/** GitHub's anchor of a Markdown heading. */
const anchor = (heading: string) => heading.trim().toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');

describe('metric names', () => {
  it('finds the metrics the code declares, with their types (the scanner itself works)', () => {
    const source = sourceMetrics();
    expect(source.get('trawl_job_duration_seconds')).toBe('histogram');
    expect(source.get('trawl_http_request_duration_seconds')).toBe('histogram');
    expect(source.get('trawl_webhook_deliveries_total')).toBe('counter');
    expect(source.get('trawl_jobs_stalled_total')).toBe('counter');
    expect(source.has('trawl_queue_ready_jobs')).toBe(true);
    expect(source.has('trawl_redis_memory_max_bytes')).toBe(true);
    expect(exported.get('trawl_process_resident_memory_bytes')).toBe('gauge');
    expect(exported.get('trawl_nodejs_eventloop_lag_p99_seconds')).toBe('gauge');
    expect(isExportedSeries('trawl_job_duration_seconds_bucket', exported)).toBe(true);
    expect(isExportedSeries('trawl_webhook_deliveries_total_bucket', exported)).toBe(false);
    expect(isExportedSeries('trawl_queue_ready_jobs_count', exported)).toBe(false);
    expect(metricNamesIn('sum(rate(trawl_x_total{a="trawl_not_a_name"}[5m])) / trawl:y:rate5m')).toEqual(['trawl_x_total', 'trawl:y:rate5m']);
  });

  it('rules read only exported metrics and defined recording rules', () => {
    const bad = [...recording, ...alerts].map((r) => ({ rule: r.record ?? r.alert, unknown: unknownNames(r.expr) })).filter((r) => r.unknown.length > 0);
    expect(bad).toEqual([]);
  });

  it('dashboard panels read only exported metrics and defined recording rules', () => {
    const bad = dashboardTargets(dashboard).map((t) => ({ panel: t.panel, unknown: unknownNames(t.expr) })).filter((t) => t.unknown.length > 0);
    expect(bad).toEqual([]);
  });

  it('every recording rule is read by the dashboard or an alert', () => {
    const used = new Set([...dashboardTargets(dashboard).map((t) => t.expr), ...alerts.map((a) => a.expr)].flatMap(metricNamesIn));
    expect([...recorded].filter((r) => !used.has(r))).toEqual([]);
  });
});

describe('prometheus rules', () => {
  it('promtool check rules accepts both rule files', () => {
    const r = run(promtool, ['check', 'rules', ...RULE_FILES]);
    expect(r.output).toContain('SUCCESS');
    expect(r.status).toBe(0);
  });

  it('recording rules are named trawl:<metric>:<aggregation>', () => {
    for (const r of recording) expect(r.record).toMatch(/^trawl:[a-z0-9_]+:[a-z0-9_]+$/);
    expect(recording.filter((r) => r.alert)).toEqual([]);
  });

  it('alerts carry a severity, a for duration, summary, description and a runbook section of the README', () => {
    const readme = readFileSync(join(PROMETHEUS_DIR, 'README.md'), 'utf8');
    const anchors = new Set([...readme.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchor(m[1]!)));
    expect(alerts.length).toBeGreaterThanOrEqual(12);
    for (const a of alerts as Required<Rule>[]) {
      expect({ alert: a.alert, severity: a.labels.severity }).toEqual({ alert: a.alert, severity: expect.stringMatching(/^(critical|warning)$/) });
      expect(a.for).toMatch(/^\d+[smh]$/);
      expect(Object.keys(a.annotations).sort()).toEqual(['description', 'runbook', 'summary']);
      const [file, section] = (a.annotations.runbook ?? '').split('#');
      expect(file).toBe('infra/prometheus/README.md');
      expect({ alert: a.alert, documented: anchors.has(section!) }).toEqual({ alert: a.alert, documented: true });
    }
  });

  it('target alerts name the scrape jobs of the example config', () => {
    const config = YAML.parse(readFileSync(join(PROMETHEUS_DIR, 'prometheus.yml'), 'utf8')) as { scrape_configs: { job_name: string }[] };
    const jobs = new Set(config.scrape_configs.map((s) => s.job_name));
    const named = alerts.flatMap((a) => [...a.expr.matchAll(/job=~?"([^"]+)"/g)].flatMap((m) => m[1]!.split('|')));
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((j) => !jobs.has(j))).toEqual([]);
  });

  it('promtool check config accepts prometheus.yml and finds its rule files', () => {
    const r = run(promtool, ['check', 'config', join(PROMETHEUS_DIR, 'prometheus.yml')]);
    expect(r.output).toContain('SUCCESS: 2 rule files found');
    expect(r.status).toBe(0);
  });

  it('every alert is proven to fire by a unit test', () => {
    const tested = new Set<string>();
    for (const file of UNIT_TESTS) {
      const doc = YAML.parse(readFileSync(file, 'utf8')) as { tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[] };
      for (const t of doc.tests) for (const a of t.alert_rule_test ?? []) if ((a.exp_alerts ?? []).length > 0) tested.add(a.alertname);
    }
    expect(alerts.map((a) => a.alert!).filter((a) => !tested.has(a))).toEqual([]);
  });

  it('promtool test rules: the alerts fire on synthetic series, and stay quiet where they should', () => {
    expect(UNIT_TESTS.length).toBeGreaterThan(0);
    const r = run(promtool, ['test', 'rules', ...UNIT_TESTS]);
    expect(r.output).not.toContain('FAILED');
    expect(r.status).toBe(0);
  });

  it('promtool test rules fails when an expected alert does not fire (the check above can fail)', () => {
    const file = join(tmp, 'never.test.yml');
    writeFileSync(file, YAML.stringify({
      rule_files: RULE_FILES,
      evaluation_interval: '1m',
      tests: [{
        interval: '1m',
        input_series: [{ series: 'trawl_redis_up{redis="queue", instance="api:3002"}', values: '1x10' }],
        alert_rule_test: [{ eval_time: '5m', alertname: 'TrawlRedisDown', exp_alerts: [{ exp_labels: { severity: 'critical', redis: 'queue' } }] }],
      }],
    }));
    const r = run(promtool, ['test', 'rules', file]);
    expect(r.output).toContain('FAILED');
    expect(r.status).not.toBe(0);
  });
});

describe('grafana dashboard', () => {
  const panels = allPanels(dashboard);
  const visuals = panels.filter((p) => p.type !== 'row');

  it('has a Prometheus datasource variable every panel and query uses', () => {
    expect(dashboard.schemaVersion).toBe(39);
    expect(dashboard.uid).toBe('trawl-overview');
    expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }));
    for (const p of visuals) {
      expect({ panel: p.title, ds: p.datasource }).toEqual({ panel: p.title, ds: { type: 'prometheus', uid: '${datasource}' } });
      expect(p.targets?.length).toBeGreaterThan(0);
      for (const t of p.targets ?? []) expect(t.datasource?.uid).toBe('${datasource}');
    }
  });

  it('has a row per subsystem', () => {
    const rows = panels.filter((p) => p.type === 'row').map((p) => p.title).join('\n');
    for (const section of [/API/, /Queues/, /Jobs/, /Admission/, /Browsers/, /Crawls/, /Documents/, /Cache/, /Webhooks/, /Redis/, /Processes/]) expect(rows).toMatch(section);
  });

  it('panels have unique ids and do not overlap on the 24-column grid', () => {
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    const overlap = (a: GrafanaPanel, b: GrafanaPanel) =>
      a.gridPos.x < b.gridPos.x + b.gridPos.w && b.gridPos.x < a.gridPos.x + a.gridPos.w && a.gridPos.y < b.gridPos.y + b.gridPos.h && b.gridPos.y < a.gridPos.y + a.gridPos.h;
    const clashes: string[] = [];
    panels.forEach((a, i) => {
      expect(a.gridPos.x + a.gridPos.w).toBeLessThanOrEqual(24);
      for (const b of panels.slice(i + 1)) if (overlap(a, b)) clashes.push(`${a.title} / ${b.title}`);
    });
    expect(clashes).toEqual([]);
  });

  it('every panel query is valid PromQL (promtool check rules over them as recording rules)', () => {
    const targets = dashboardTargets(dashboard);
    expect(targets.filter((t) => t.expr.includes('$'))).toEqual([]);
    const file = join(tmp, 'dashboard-queries.yml');
    const rules = targets.map((t, i) => ({ record: `dashboard:query_${i}:check`, expr: t.expr }));
    writeFileSync(file, YAML.stringify({ groups: [{ name: 'dashboard', rules }] }));
    const r = run(promtool, ['check', 'rules', file]);
    expect(r.output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(r.status).toBe(0);
  });

  it('provisioning loads the dashboards directory from a Prometheus datasource', () => {
    const ds = YAML.parse(readFileSync(join(ROOT, 'infra/grafana/provisioning/datasources/prometheus.yml'), 'utf8'));
    expect(ds.datasources).toContainEqual(expect.objectContaining({ type: 'prometheus', access: 'proxy' }));
    const dash = YAML.parse(readFileSync(join(ROOT, 'infra/grafana/provisioning/dashboards/trawl.yml'), 'utf8'));
    expect(dash.providers).toContainEqual(expect.objectContaining({ type: 'file', options: expect.objectContaining({ path: expect.any(String) }) }));
  });
});
