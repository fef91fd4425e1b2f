import { spawnSync } from 'node:child_process';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import YAML from 'yaml';
import { createMetricsRegistry } from '@trawl/observability';

export const ROOT = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', '..');
export const PROMETHEUS_DIR = join(ROOT, 'infra', 'prometheus');
export const RULE_FILES = ['trawl-recording.yml', 'trawl-alerts.yml'].map((f) => join(PROMETHEUS_DIR, 'rules', f));
export const DASHBOARD_FILE = join(ROOT, 'infra', 'grafana', 'dashboards', 'trawl-overview.json');

/**
 * Absolute path of a Prometheus binary (`promtool`, `prometheus`) from PATH or /usr/bin. Throws a
 * readable error when absent: these tests must fail, not skip, on a machine without it.
 */
export function requireBinary(name: string): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin'];
  for (const dir of dirs) {
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not in this directory
    }
  }
  throw new Error(`${name} not found on PATH or in /usr/bin: install Debian's \`prometheus\` package (scripts/bootstrap.mjs does when tests run)`);
}

/** Runs a binary and returns its exit status and combined output. */
export function run(bin: string, args: string[], opts: { cwd?: string } = {}): { status: number | null; output: string } {
  const r = spawnSync(bin, args, { cwd: opts.cwd ?? ROOT, encoding: 'utf8', timeout: 60_000 });
  if (r.error) throw r.error;
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'unknown';

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

/**
 * Metric names declared in the production sources of apps/ and packages/: every string literal
 * `trawl_...` (declarations are `name: 'trawl_...'` or a helper called with the name). The type is
 * the nearest `new Histogram|Counter|Gauge|Summary(` before the literal, when one is close; it
 * decides which suffixes (`_bucket`, `_sum`, `_count`) a query may add.
 */
export function sourceMetrics(): Map<string, MetricType> {
  const found = new Map<string, MetricType>();
  const srcDirs = ['apps', 'packages'].flatMap((top) => readdirSync(join(ROOT, top)).map((name) => join(ROOT, top, name, 'src')));
  for (const dir of srcDirs) {
    let files: string[];
    try {
      files = sourceFiles(dir);
    } catch {
      continue; // a package without src/
    }
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/['"`](trawl_[a-z0-9_]+)['"`]/g)) {
        const before = text.slice(Math.max(0, m.index - 300), m.index);
        const ctor = [...before.matchAll(/new (Histogram|Counter|Gauge|Summary)\b/g)].at(-1)?.[1];
        const type = (ctor?.toLowerCase() ?? 'unknown') as MetricType;
        const known = found.get(m[1]!);
        if (!known || known === 'unknown') found.set(m[1]!, type);
      }
    }
  }
  return found;
}

/** The default Node.js metrics of a Trawl registry (`trawl_process_*`, `trawl_nodejs_*`). */
export async function defaultMetrics(): Promise<Map<string, MetricType>> {
  const registry = createMetricsRegistry({ role: 'names' });
  try {
    const json = await registry.getMetricsAsJSON();
    return new Map(json.map((m) => [m.name, String(m.type) as MetricType]));
  } finally {
    registry.clear();
  }
}

/** Every metric name a Trawl process can export, with its type. */
export async function exportedMetrics(): Promise<Map<string, MetricType>> {
  return new Map([...sourceMetrics(), ...(await defaultMetrics())]);
}

/**
 * Whether `name` (as written in a query, or as Prometheus stores it) is a series of an exported
 * metric: the name itself, or a histogram's `_bucket/_sum/_count`, a summary's `_sum/_count`, a
 * counter declared without `_total` read with it.
 */
export function isExportedSeries(name: string, exported: Map<string, MetricType>): boolean {
  if (exported.has(name)) return true;
  const m = /^(.*)_(bucket|sum|count|total)$/.exec(name);
  if (!m) return false;
  const type = exported.get(m[1]!);
  if (m[2] === 'bucket') return type === 'histogram';
  if (m[2] === 'total') return type === 'counter';
  return type === 'histogram' || type === 'summary';
}

/** `trawl_*` and `trawl:*` metric names a PromQL expression reads (string literals ignored). */
export function metricNamesIn(expr: string): string[] {
  const code = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""');
  return [...new Set([...code.matchAll(/\btrawl[_:][a-zA-Z0-9_:]*/g)].map((m) => m[0]))];
}

export interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

/** The rules of a Prometheus rule file, flattened over its groups. */
export function loadRules(file: string): Rule[] {
  const doc = YAML.parse(readFileSync(file, 'utf8')) as { groups: { name: string; rules: Rule[] }[] };
  return doc.groups.flatMap((g) => g.rules);
}

/** Grafana substitutes these before a query reaches Prometheus; PromQL checks need real durations. */
export function substituteGrafanaVariables(expr: string): string {
  return expr.replaceAll('$__rate_interval', '5m').replaceAll('$__interval', '1m').replaceAll('$__range', '1h');
}

export interface DashboardTarget {
  panel: string;
  refId: string;
  expr: string;
}

// Grafana's JSON model is loosely typed; only the fields read here are declared.
export interface GrafanaPanel {
  id: number;
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  gridPos: { h: number; w: number; x: number; y: number };
  targets?: { refId: string; expr: string; datasource?: { type?: string; uid?: string } }[];
  panels?: GrafanaPanel[];
}

export interface GrafanaDashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  templating: { list: { name: string; type: string; query: string }[] };
  panels: GrafanaPanel[];
}

export function loadDashboard(): GrafanaDashboard {
  return JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as GrafanaDashboard;
}

/** Panels of a dashboard, rows' nested panels included (collapsed rows keep theirs inside). */
export function allPanels(dashboard: GrafanaDashboard): GrafanaPanel[] {
  return dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

/** Every query of every panel, Grafana variables substituted. */
export function dashboardTargets(dashboard: GrafanaDashboard): DashboardTarget[] {
  return allPanels(dashboard).flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, refId: t.refId, expr: substituteGrafanaVariables(t.expr) })));
}
