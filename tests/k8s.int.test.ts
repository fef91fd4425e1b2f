// Static checks of the Kubernetes manifests in infra/k8s. No cluster is needed: every object is
// validated against the Kubernetes (and KEDA, prometheus-operator) schemas with kubernetes-models,
// each overlay is rendered by a small kustomize subset (tests/helpers/k8s-kustomize.ts) and the result
// is cross-checked against the code (config schemas, Dockerfile targets) and the metrics contract.
// When kubectl is present, its `kubectl kustomize` output must equal the test renderer's.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import YAML from 'yaml';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { PodMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PodMonitor';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { type K8sObject, podTemplate, readYamlDocuments, referencedFiles, renderKustomization, splitImage } from './helpers/k8s-kustomize.js';
import { sourceMetrics } from './helpers/prometheus-metrics.js';

const ROOT = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const K8S = join(ROOT, 'infra/k8s');
const OVERLAYS = ['small', 'large'];
const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');

// ---------------------------------------------------------------------------------------------------
// What the manifests rely on.

/** Gauges the autoscaling queries may use: the cluster-wide queue gauges the code exports. */
const exported = sourceMetrics();
const SCALING_METRICS = new Set(['trawl_queue_jobs', 'trawl_queue_ready_jobs', 'trawl_queue_oldest_ready_seconds'].filter((m) => exported.has(m)));
/** Queues each worker role consumes, and the variable that sets how many of its jobs one pod runs. */
const ROLE_QUEUES: Record<string, Record<string, string>> = {
  http: { scrape: 'TRAWL_WORKER_CONCURRENCY', crawl: 'TRAWL_CRAWL_CONCURRENCY', webhook: 'TRAWL_WEBHOOK_CONCURRENCY', monitor: 'TRAWL_MONITOR_CONCURRENCY', extract: 'TRAWL_EXTRACT_CONCURRENCY' },
  browser: { browser: 'TRAWL_BROWSER_CONCURRENCY' },
  documents: { documents: 'TRAWL_DOCUMENT_CONCURRENCY' },
};
/** Dockerfile target of each role's image (the image is named `trawl-<target>`). */
const TARGET_OF_ROLE: Record<string, string> = { api: 'api', http: 'worker', browser: 'browser-worker', documents: 'documents-worker' };
/** Addresses workers must never reach, and one address inside each range. */
const FORBIDDEN_V4 = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '169.254.0.0/16', '127.0.0.0/8'];
const FORBIDDEN_V6 = ['fc00::/7', 'fe80::/10', '::1/128'];
const PROBE_ADDRESSES = ['169.254.169.254', '10.96.0.1', '172.20.0.10', '192.168.1.1', '100.100.100.200', '127.0.0.1', 'fd00:ec2::254', 'fe80::1', '::1'];

// ---------------------------------------------------------------------------------------------------
// What the code reads

// Every shared env fragment of packages/config (cache, queue, webhook, llm...) besides the apps' own schemas.
const configFragments = readdirSync(join(ROOT, 'packages/config/src'))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => `packages/config/src/${f}`);
const configText = [
  'apps/api/src/config.ts', 'apps/worker/src/config.ts', ...configFragments, 'packages/blob-store/src/blob-store-env.ts',
].map(read).join('\n');
/** A variable the code reads: a key of one of the zod config schemas. */
const codeReads = (name: string) => new RegExp(`^\\s*${name}\\s*:`, 'm').test(configText);
const dockerTargets = new Set([...read('infra/docker/Dockerfile').matchAll(/^FROM\s+\S+\s+AS\s+(\S+)/gim)].map((m) => m[1]!));

// ---------------------------------------------------------------------------------------------------
// Schemas

type Validating = { validate(): void };
const MODELS: Record<string, new (data: never) => Validating> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
  'monitoring.coreos.com/v1/PodMonitor': PodMonitor,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
};

/** Schema errors of one object ('' when valid); an unknown apiVersion/kind is an error. */
function schemaErrors(o: K8sObject): string {
  const Model = MODELS[`${o.apiVersion}/${o.kind}`];
  if (!Model) return `unknown kind ${o.apiVersion}/${o.kind}`;
  try {
    new Model(structuredClone(o) as never).validate();
    return '';
  } catch (err) {
    return (err as Error).message;
  }
}

// ---------------------------------------------------------------------------------------------------
// Files

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}
const allYaml = yamlFiles(K8S);
const kustomizationDirs = allYaml.filter((f) => f.endsWith('/kustomization.yaml')).map((f) => resolve(f, '..'));
const patchAndEnvFiles = new Set(kustomizationDirs.flatMap(referencedFiles));
const objectFiles = allYaml.filter((f) => !f.endsWith('/kustomization.yaml') && !patchAndEnvFiles.has(f));
const rendered = new Map(OVERLAYS.map((o) => [o, renderKustomization(join(K8S, 'overlays', o))]));
/** The optional SearXNG component, as an overlay enabling it renders it: small plus `components/searxng`. */
const WITH_SEARXNG = 'small+searxng';
const kustomizeDir = new Map(OVERLAYS.map((o) => [o, join(K8S, 'overlays', o)]));
{
  const dir = mkdtempSync(join(tmpdir(), 'trawl-k8s-searxng-'));
  // Relative paths: kustomize refuses absolute ones.
  const from = (path: string) => relative(dir, join(K8S, path));
  const kustomization = { apiVersion: 'kustomize.config.k8s.io/v1beta1', kind: 'Kustomization', namespace: 'trawl', resources: [from('overlays/small')], components: [from('components/searxng')] };
  writeFileSync(join(dir, 'kustomization.yaml'), YAML.stringify(kustomization));
  rendered.set(WITH_SEARXNG, renderKustomization(dir));
  kustomizeDir.set(WITH_SEARXNG, dir);
}

// ---------------------------------------------------------------------------------------------------
// Object helpers

interface Container {
  name: string;
  image: string;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface Probe {
  httpGet?: { path: string; port: number | string };
  exec?: { command: string[] };
}
interface PodSpec {
  containers: Container[];
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  volumes?: Array<{ name: string; emptyDir?: { medium?: string; sizeLimit?: string } }>;
}
type Selector = { matchLabels?: Record<string, string>; matchExpressions?: Array<{ key: string; operator: string; values?: string[] }> };

const ofKind = (objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind);
const byName = (objects: K8sObject[], kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const spec = <T>(o: K8sObject) => o.spec as T;
const podSpecOf = (o: K8sObject) => podTemplate(o)!.spec as unknown as PodSpec;
const podLabels = (o: K8sObject) => podTemplate(o)?.metadata?.labels ?? {};
const workloads = (objects: K8sObject[]) => objects.filter((o) => podTemplate(o));
/** Trawl's own Deployments: the API and the worker roles. */
const trawlDeployments = (objects: K8sObject[]) =>
  ofKind(objects, 'Deployment').filter((d) => ['api', 'worker'].includes(d.metadata.labels?.['app.kubernetes.io/component'] ?? ''));
const roleOf = (d: K8sObject) => (d.metadata.labels?.['app.kubernetes.io/component'] === 'api' ? 'api' : envOf(d).get('TRAWL_WORKER_ROLES')!);

/** Plain env values of a workload's first container, with the shared ConfigMap's under them. */
function envOf(o: K8sObject, objects?: K8sObject[]): Map<string, string> {
  const c = podSpecOf(o).containers[0]!;
  const env = new Map<string, string>();
  for (const from of c.envFrom ?? []) {
    const cm = from.configMapRef && objects ? byName(objects, 'ConfigMap', from.configMapRef.name) : undefined;
    for (const [k, v] of Object.entries((cm?.data as Record<string, string> | undefined) ?? {})) env.set(k, v);
  }
  for (const e of c.env ?? []) if (e.value !== undefined) env.set(e.name, e.value);
  return env;
}

function selects(selector: Selector, labels: Record<string, string>): boolean {
  const exprs = selector.matchExpressions ?? [];
  if (!Object.keys(selector.matchLabels ?? {}).length && !exprs.length) return false; // never accept an empty selector here
  if (!Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v)) return false;
  return exprs.every((e) => {
    if (e.operator === 'In') return e.values!.includes(labels[e.key] ?? '\0');
    if (e.operator === 'NotIn') return !e.values!.includes(labels[e.key] ?? '\0');
    if (e.operator === 'Exists') return e.key in labels;
    return !(e.key in labels);
  });
}

/** The port number a probe or Service targets (named ports resolved against the container). */
function portNumber(c: Container, port: number | string): number | undefined {
  return typeof port === 'number' ? port : c.ports?.find((p) => p.name === port)?.containerPort;
}

// CIDR containment for IPv4 and IPv6 (BigInt arithmetic on the full address).
function parseIp(ip: string): { v6: boolean; value: bigint } {
  if (ip.includes(':')) {
    const [head, tail = ''] = ip.split('::');
    const h = head ? head.split(':') : [];
    const t = ip.includes('::') ? (tail ? tail.split(':') : []) : [];
    const groups = ip.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
    return { v6: true, value: groups.reduce((acc, g) => (acc << 16n) + BigInt(parseInt(g || '0', 16)), 0n) };
  }
  return { v6: false, value: ip.split('.').reduce((acc, o) => (acc << 8n) + BigInt(Number(o)), 0n) };
}
function inCidr(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split('/');
  const a = parseIp(ip);
  const b = parseIp(base!);
  if (a.v6 !== b.v6) return false;
  const width = a.v6 ? 128n : 32n;
  const shift = width - BigInt(Number(bits));
  return a.value >> shift === b.value >> shift;
}

// ---------------------------------------------------------------------------------------------------

describe('infra/k8s files', () => {
  it('parses every YAML file and validates every object against the Kubernetes, KEDA and prometheus-operator schemas', () => {
    expect(objectFiles.length).toBeGreaterThan(5);
    for (const file of objectFiles) {
      for (const doc of readYamlDocuments(file)) {
        const o = doc as K8sObject;
        expect({ file: relative(ROOT, file), object: `${o.kind}/${o.metadata?.name}`, errors: schemaErrors(o) }).toEqual({
          file: relative(ROOT, file),
          object: `${o.kind}/${o.metadata?.name}`,
          errors: '',
        });
      }
    }
  });

  it('knows only the kinds it can validate', () => {
    const unknown = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } } as K8sObject;
    expect(schemaErrors(unknown)).toMatch(/unknown kind/);
    const broken = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { template: { spec: { containers: [{ image: 'i' }] } } } } as K8sObject;
    expect(schemaErrors(broken)).not.toBe('');
  });

  it('parses every patch file as an RFC 6902 operation list', () => {
    for (const file of [...patchAndEnvFiles].filter((f) => /\.ya?ml$/.test(f))) {
      const patch = YAML.parse(readFileSync(file, 'utf8')) as Array<{ op?: string; path?: string }>;
      const ok = Array.isArray(patch) && patch.every((op) => ['add', 'replace', 'remove'].includes(op.op ?? '') && op.path?.startsWith('/'));
      expect({ file: relative(ROOT, file), ok }).toEqual({ file: relative(ROOT, file), ok: true });
    }
  });

  it('commits no real secret: the generator env files are marked as examples and hold placeholders only', () => {
    for (const file of [...patchAndEnvFiles].filter((f) => f.endsWith('.env'))) {
      const text = readFileSync(file, 'utf8');
      expect(text).toMatch(/EXAMPLE ONLY/);
      for (const line of text.split('\n').filter((l) => /^TRAWL_(ADMIN_KEY|BOOTSTRAP_API_KEY|S3_SECRET_ACCESS_KEY|WEBHOOK_SECRET)=/.test(l))) {
        expect(line).toMatch(/=$/);
      }
    }
    for (const o of objectFiles.flatMap((f) => readYamlDocuments(f) as K8sObject[])) expect(o.kind).not.toBe('Secret');
  });
});

describe.each([...OVERLAYS, WITH_SEARXNG])('overlay %s', (overlay) => {
  const objects = rendered.get(overlay)!;
  const deployments = trawlDeployments(objects);

  it('renders valid objects with unique kind/namespace/name, all in one namespace', () => {
    for (const o of objects) expect({ object: `${o.kind}/${o.metadata.name}`, errors: schemaErrors(o) }).toEqual({ object: `${o.kind}/${o.metadata.name}`, errors: '' });
    const ids = objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    expect(ids.length).toBe(new Set(ids).size);
    const namespaces = new Set(objects.filter((o) => o.kind !== 'Namespace').map((o) => o.metadata.namespace));
    expect([...namespaces]).toEqual(['trawl']);
    expect(byName(objects, 'Namespace', 'trawl')).toBeDefined();
  });

  it('has the API and one Deployment per worker role, with images of the matching Dockerfile targets', () => {
    expect(deployments.map(roleOf).sort()).toEqual(['api', 'browser', 'documents', 'http']);
    for (const d of deployments) {
      const role = roleOf(d);
      const target = TARGET_OF_ROLE[role]!;
      expect(dockerTargets.has(target)).toBe(true);
      const image = splitImage(podSpecOf(d).containers[0]!.image);
      expect({ role, image: image.name.split('/').at(-1) }).toEqual({ role, image: `trawl-${target}` });
      expect(image.tag).toBeTruthy();
    }
  });

  it('probes /health/live and /health/ready on PORT (API) or TRAWL_WORKER_PORT (workers)', () => {
    for (const d of deployments) {
      const c = podSpecOf(d).containers[0]!;
      const env = envOf(d, objects);
      const port = Number(roleOf(d) === 'api' ? env.get('PORT') : env.get('TRAWL_WORKER_PORT'));
      expect(port).toBe(roleOf(d) === 'api' ? 3002 : 3003);
      const probe = (p: Probe | undefined) => ({ path: p?.httpGet?.path, port: p?.httpGet && portNumber(c, p.httpGet.port) });
      expect({ name: d.metadata.name, live: probe(c.livenessProbe), ready: probe(c.readinessProbe) }).toEqual({
        name: d.metadata.name,
        live: { path: '/health/live', port },
        ready: { path: '/health/ready', port },
      });
      if (c.startupProbe) expect(probe(c.startupProbe)).toEqual({ path: '/health/live', port });
    }
    const browser = deployments.find((d) => roleOf(d) === 'browser')!;
    expect(podSpecOf(browser).containers[0]!.startupProbe).toBeDefined();
  });

  it('sets CPU and memory requests and limits on every container', () => {
    for (const w of workloads(objects)) {
      for (const c of podSpecOf(w).containers) {
        expect({ container: `${w.metadata.name}/${c.name}`, requests: Object.keys(c.resources?.requests ?? {}).sort(), limits: Object.keys(c.resources?.limits ?? {}).sort() }).toEqual({
          container: `${w.metadata.name}/${c.name}`,
          requests: ['cpu', 'memory'],
          limits: ['cpu', 'memory'],
        });
      }
    }
  });

  it('gives pods longer than shutdown delay + grace before SIGKILL, and the API a delay for endpoint removal', () => {
    for (const d of deployments) {
      const env = envOf(d, objects);
      const delay = Number(env.get('TRAWL_SHUTDOWN_DELAY_MS') ?? 0);
      const grace = Number(env.get('TRAWL_SHUTDOWN_GRACE_MS') ?? 30_000);
      expect({ name: d.metadata.name, enough: podSpecOf(d).terminationGracePeriodSeconds! > (delay + grace) / 1000 }).toEqual({ name: d.metadata.name, enough: true });
      if (roleOf(d) === 'api') expect(delay).toBeGreaterThanOrEqual(3000);
      // Sync scrapes run up to their 300 s maximum timeout: the API must not cut them off.
      if (roleOf(d) === 'api') expect(grace).toBeGreaterThanOrEqual(300_000 + 2_000);
    }
  });

  it('sets only variables the code reads (ConfigMap, Secret, Deployment env)', () => {
    const names = new Set<string>();
    // The ConfigMaps Trawl's pods load as environment (another component's files, e.g. SearXNG's settings, are not variables).
    const envMaps = new Set(deployments.flatMap((d) => (podSpecOf(d).containers[0]!.envFrom ?? []).flatMap((f) => (f.configMapRef ? [f.configMapRef.name] : []))));
    expect(envMaps.size).toBeGreaterThan(0);
    for (const cm of ofKind(objects, 'ConfigMap').filter((c) => envMaps.has(c.metadata.name))) for (const k of Object.keys((cm.data as object | undefined) ?? {})) names.add(k);
    for (const s of ofKind(objects, 'Secret')) for (const k of Object.keys((s.data as object | undefined) ?? {})) names.add(k);
    for (const d of deployments) for (const e of podSpecOf(d).containers[0]!.env ?? []) names.add(e.name);
    expect(names.size).toBeGreaterThan(10);
    for (const name of names) expect({ name, readByCode: codeReads(name) }).toEqual({ name, readByCode: true });
  });

  it('refers only to the ConfigMap and Secret keys that exist (optional keys excepted)', () => {
    for (const d of deployments) {
      const c = podSpecOf(d).containers[0]!;
      for (const from of c.envFrom ?? []) if (from.configMapRef) expect(byName(objects, 'ConfigMap', from.configMapRef.name)).toBeDefined();
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef as { name: string; key: string; optional?: boolean } | undefined;
        if (!ref) continue;
        const secret = byName(objects, 'Secret', ref.name);
        expect({ ref: ref.name, exists: Boolean(secret) }).toEqual({ ref: ref.name, exists: true });
        if (!ref.optional) expect(Object.keys(secret!.data as object)).toContain(ref.key);
      }
      expect(envOf(d).get('TRAWL_WORKER_ROLES') ?? 'api').toBe(roleOf(d));
    }
  });

  it('runs as non-root with a read-only root filesystem and a writable /tmp; browsers get a memory-backed /dev/shm', () => {
    for (const d of deployments) {
      const pod = podSpecOf(d);
      const c = pod.containers[0]!;
      expect({ name: d.metadata.name, nonRoot: pod.securityContext?.runAsNonRoot, roRoot: c.securityContext?.readOnlyRootFilesystem, escalation: c.securityContext?.allowPrivilegeEscalation }).toEqual({
        name: d.metadata.name, nonRoot: true, roRoot: true, escalation: false,
      });
      const tmp = c.volumeMounts?.find((m) => m.mountPath === '/tmp');
      expect(pod.volumes?.find((v) => v.name === tmp?.name)?.emptyDir).toBeDefined();
    }
    const browser = podSpecOf(deployments.find((d) => roleOf(d) === 'browser')!);
    const shm = browser.containers[0]!.volumeMounts?.find((m) => m.mountPath === '/dev/shm');
    expect(browser.volumes?.find((v) => v.name === shm?.name)?.emptyDir?.medium).toBe('Memory');
  });

  it('spreads API pods over nodes', () => {
    const api = deployments.find((d) => roleOf(d) === 'api')!;
    const pod = podSpecOf(api) as PodSpec & { topologySpreadConstraints?: Array<{ topologyKey: string; labelSelector: Selector }> };
    const spread = pod.topologySpreadConstraints?.find((t) => t.topologyKey === 'kubernetes.io/hostname');
    expect(spread && selects(spread.labelSelector, podLabels(api))).toBe(true);
  });

  it('matches every PDB to exactly one Deployment or StatefulSet and every Service to pods with the target ports', () => {
    for (const pdb of ofKind(objects, 'PodDisruptionBudget')) {
      const selector = spec<{ selector: Selector }>(pdb).selector;
      expect({ pdb: pdb.metadata.name, matches: workloads(objects).filter((w) => selects(selector, podLabels(w))).map((w) => w.metadata.name) }).toEqual({
        pdb: pdb.metadata.name,
        matches: [pdb.metadata.name],
      });
    }
    for (const d of deployments) expect(ofKind(objects, 'PodDisruptionBudget').some((p) => selects(spec<{ selector: Selector }>(p).selector, podLabels(d)))).toBe(true);
    for (const svc of ofKind(objects, 'Service')) {
      const s = spec<{ selector: Record<string, string>; ports: Array<{ targetPort: string | number }> }>(svc);
      const pods = workloads(objects).filter((w) => selects({ matchLabels: s.selector }, podLabels(w)));
      expect({ service: svc.metadata.name, pods: pods.length > 0 }).toEqual({ service: svc.metadata.name, pods: true });
      for (const w of pods) for (const p of s.ports) expect(portNumber(podSpecOf(w).containers[0]!, p.targetPort)).toBeDefined();
    }
    for (const d of deployments) expect(selects(spec<{ selector: Selector }>(d).selector, podLabels(d))).toBe(true);
  });

  it('scales the API with an autoscaling/v2 CPU HPA that shrinks slowly', () => {
    const hpa = spec<{ scaleTargetRef: { kind: string; name: string }; minReplicas: number; maxReplicas: number; metrics: Array<{ resource?: { name: string } }>; behavior?: { scaleDown?: { stabilizationWindowSeconds?: number } } }>(
      byName(objects, 'HorizontalPodAutoscaler', 'trawl-api')!,
    );
    expect(hpa.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: 'trawl-api' });
    expect(hpa.metrics.map((m) => m.resource?.name)).toEqual(['cpu']);
    expect(hpa.minReplicas).toBeLessThanOrEqual(hpa.maxReplicas);
    expect(hpa.behavior?.scaleDown?.stabilizationWindowSeconds).toBeGreaterThanOrEqual(120);
  });

  it('scales each worker role with KEDA on its own queues: demand per queue at the pod concurrency, and wait time', () => {
    const scaled = ofKind(objects, 'ScaledObject');
    expect(scaled).toHaveLength(3);
    const seenRoles = new Set<string>();
    for (const so of scaled) {
      const s = spec<{ scaleTargetRef: { name: string }; maxReplicaCount: number; minReplicaCount: number; triggers: Array<{ type: string; name: string; metricType?: string; metadata: Record<string, string> }> }>(so);
      const target = byName(objects, 'Deployment', s.scaleTargetRef.name);
      expect({ so: so.metadata.name, target: Boolean(target) }).toEqual({ so: so.metadata.name, target: true });
      const role = roleOf(target!);
      seenRoles.add(role);
      const queues = ROLE_QUEUES[role]!;
      const env = envOf(target!, objects);
      expect(s.minReplicaCount).toBeLessThanOrEqual(s.maxReplicaCount);
      const demanded = new Set<string>();
      let waitTriggers = 0;
      for (const t of s.triggers) {
        expect(t.type).toBe('prometheus');
        expect(t.metadata.serverAddress).toMatch(/^https?:\/\/\S+$/);
        const query = t.metadata.query!;
        const metrics = [...query.matchAll(/\btrawl_[a-z_]+/g)].map((m) => m[0]);
        for (const m of metrics) expect({ trigger: t.name, metric: m, exported: SCALING_METRICS.has(m) }).toEqual({ trigger: t.name, metric: m, exported: true });
        // Identical series come from every process: aggregate with max, never sum across instances.
        expect(query).not.toMatch(/\bsum\b|\bavg\b/);
        expect(query).toMatch(/max by \(queue\)/);
        const named = [...query.matchAll(/queue=~?"([^"]+)"/g)].flatMap((m) => m[1]!.split('|'));
        for (const q of named) expect({ trigger: t.name, queue: q, consumed: q in queues }).toEqual({ trigger: t.name, queue: q, consumed: true });
        if (metrics.includes('trawl_queue_oldest_ready_seconds')) {
          waitTriggers += 1;
          expect(new Set(named)).toEqual(new Set(Object.keys(queues)));
          expect(t.metricType).toBe('Value');
        } else {
          expect(metrics).toContain('trawl_queue_ready_jobs');
          expect(named.length).toBeGreaterThan(0);
          expect(new Set(named).size).toBe(1);
          const queue = named[0]!;
          demanded.add(queue);
          // One pod runs `concurrency` jobs of this queue: that is the average value to aim for.
          expect({ trigger: t.name, threshold: t.metadata.threshold, metricType: t.metricType ?? 'AverageValue' }).toEqual({
            trigger: t.name,
            threshold: env.get(queues[queue]!),
            metricType: 'AverageValue',
          });
        }
      }
      expect(waitTriggers).toBe(1);
      expect([...demanded].sort()).toEqual(Object.keys(queues).sort());
    }
    expect([...seenRoles].sort()).toEqual(['browser', 'documents', 'http']);
  });

  it('keeps workers away from private, metadata and loopback addresses, and lets only monitoring in', () => {
    const policies = ofKind(objects, 'NetworkPolicy');
    type Peer = { ipBlock?: { cidr: string; except?: string[] }; podSelector?: Selector; namespaceSelector?: Selector };
    type Rule = { to?: Peer[]; from?: Peer[]; ports?: Array<{ port: number }> };
    for (const d of deployments.filter((x) => roleOf(x) !== 'api')) {
      const applying = policies.filter((p) => selects(spec<{ podSelector: Selector }>(p).podSelector, podLabels(d)));
      expect(applying.length).toBeGreaterThan(0);
      for (const p of applying) {
        const s = spec<{ policyTypes: string[]; egress?: Rule[]; ingress?: Rule[] }>(p);
        expect([...s.policyTypes].sort()).toEqual(['Egress', 'Ingress']);
        // No rule may open every destination.
        for (const rule of s.egress ?? []) expect(rule.to?.length).toBeGreaterThan(0);
        const blocks = (s.egress ?? []).flatMap((r) => r.to ?? []).flatMap((peer) => (peer.ipBlock ? [peer.ipBlock] : []));
        for (const address of PROBE_ADDRESSES) {
          const open = blocks.filter((b) => inCidr(address, b.cidr) && !(b.except ?? []).some((e) => inCidr(address, e)));
          expect({ address, allowedBy: open.map((b) => b.cidr) }).toEqual({ address, allowedBy: [] });
        }
        const v4 = blocks.find((b) => b.cidr === '0.0.0.0/0');
        const v6 = blocks.find((b) => b.cidr === '::/0');
        expect([...(v4?.except ?? [])].sort()).toEqual([...FORBIDDEN_V4].sort());
        expect([...(v6?.except ?? [])].sort()).toEqual([...FORBIDDEN_V6].sort());
        for (const rule of s.ingress ?? []) {
          expect(rule.from?.map((f) => f.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'])).toEqual(['monitoring']);
          expect(rule.ports?.map((x) => x.port)).toEqual([Number(envOf(d).get('TRAWL_WORKER_PORT'))]);
        }
      }
    }
    const api = deployments.find((d) => roleOf(d) === 'api')!;
    const apiPolicy = policies.find((p) => selects(spec<{ podSelector: Selector }>(p).podSelector, podLabels(api)))!;
    expect(spec<{ ingress: Rule[] }>(apiPolicy).ingress.flatMap((r) => r.ports?.map((x) => x.port))).toEqual([3002]);
  });

  it('annotates pods for plain Prometheus scraping on their metrics port', () => {
    for (const d of deployments) {
      const a = podTemplate(d)!.metadata?.annotations ?? {};
      const port = roleOf(d) === 'api' ? '3002' : '3003';
      expect({ name: d.metadata.name, scrape: a['prometheus.io/scrape'], port: a['prometheus.io/port'], path: a['prometheus.io/path'] }).toEqual({
        name: d.metadata.name, scrape: 'true', port, path: '/metrics',
      });
    }
  });
});

describe('Redis', () => {
  it('small: a durable queue Redis StatefulSet (AOF, noeviction, volume, headless Service) and an evicting cache Redis, wired through the Secret', () => {
    const objects = rendered.get('small')!;
    const sts = byName(objects, 'StatefulSet', 'trawl-redis')!;
    const s = spec<{ serviceName: string; volumeClaimTemplates: unknown[] }>(sts);
    const redis = podSpecOf(sts).containers[0]! as Container & { args: string[] };
    expect(redis.image).toMatch(/^redis:7(\.|-|$)/);
    const args = redis.args.join(' ');
    expect(args).toMatch(/--appendonly yes\b/);
    expect(args).toMatch(/--maxmemory-policy noeviction\b/);
    expect(s.volumeClaimTemplates).toHaveLength(1);
    expect(redis.volumeMounts?.map((m) => m.mountPath)).toContain('/data');
    expect(redis.livenessProbe?.exec?.command.join(' ')).toMatch(/redis-cli ping/);
    const headless = byName(objects, 'Service', s.serviceName)!;
    expect(spec<{ clusterIP: string }>(headless).clusterIP).toBe('None');

    const cache = byName(objects, 'Deployment', 'trawl-cache-redis')!;
    const cacheArgs = (podSpecOf(cache).containers[0] as Container & { args: string[] }).args.join(' ');
    expect(cacheArgs).toMatch(/--maxmemory-policy allkeys-lru\b/);
    expect(cacheArgs).toMatch(/--maxmemory \d+[kmg]b\b/);

    const secret = byName(objects, 'Secret', 'trawl-secrets')!.data as Record<string, string>;
    const decode = (k: string) => Buffer.from(secret[k] ?? '', 'base64').toString();
    expect(decode('REDIS_URL')).toBe(`redis://${s.serviceName}:6379`);
    expect(decode('CACHE_REDIS_URL')).toBe('redis://trawl-cache-redis:6379');
    // Redis takes connections from Trawl pods only.
    const policy = byName(objects, 'NetworkPolicy', 'trawl-redis')!;
    const from = spec<{ ingress: Array<{ from: Array<{ podSelector: Selector }> }> }>(policy).ingress.flatMap((r) => r.from);
    for (const d of trawlDeployments(objects)) expect(from.some((f) => selects(f.podSelector, podLabels(d)))).toBe(true);
    expect(from.some((f) => selects(f.podSelector, podLabels(sts)))).toBe(false);
  });

  it('large: no Redis in the cluster, managed Redis URLs from the Secret and an egress rule to reach them', () => {
    const objects = rendered.get('large')!;
    expect(ofKind(objects, 'StatefulSet')).toHaveLength(0);
    const secret = byName(objects, 'Secret', 'trawl-secrets')!.data as Record<string, string>;
    expect(Buffer.from(secret.REDIS_URL!, 'base64').toString()).toMatch(/^rediss?:\/\//);
    const egress = spec<{ egress: Array<{ to: Array<{ ipBlock?: { cidr: string } }>; ports?: Array<{ port: number }> }> }>(byName(objects, 'NetworkPolicy', 'trawl-workers')!).egress;
    expect(egress.some((r) => r.to.some((t) => t.ipBlock && !t.ipBlock.cidr.endsWith('/0')) && r.ports?.every((p) => p.port === 6379))).toBe(true);
    const monitors = ofKind(objects, 'PodMonitor');
    expect(monitors).toHaveLength(1);
    // Its job names are the alert rules' (the same as the example prometheus.yml's scrape jobs).
    const jobLabel = spec<{ jobLabel: string }>(monitors[0]!).jobLabel;
    const jobs = new Set(ofKind(objects, 'Deployment').map((d) => podTemplate(d)?.metadata?.labels?.[jobLabel]));
    expect([...jobs].sort()).toEqual(['trawl-api', 'trawl-worker']);
  });

  it('large allows more replicas than small everywhere', () => {
    const max = (overlay: string, name: string) => spec<{ maxReplicaCount: number }>(byName(rendered.get(overlay)!, 'ScaledObject', name)!).maxReplicaCount;
    for (const name of ['trawl-worker-http', 'trawl-worker-browser', 'trawl-worker-documents']) expect(max('large', name)).toBeGreaterThan(max('small', name));
    const hpaMax = (overlay: string) => spec<{ maxReplicas: number }>(byName(rendered.get(overlay)!, 'HorizontalPodAutoscaler', 'trawl-api')!).maxReplicas;
    expect(hpaMax('large')).toBeGreaterThan(hpaMax('small'));
  });
});

describe('SearXNG component (components/searxng)', () => {
  const objects = rendered.get(WITH_SEARXNG)!;
  const deployment = byName(objects, 'Deployment', 'trawl-searxng')!;
  const labels = podLabels(deployment);
  const settings = YAML.parse(read('infra/searxng/settings.yml')) as { server: { port: number; limiter: boolean; secret_key: string }; search: { formats: string[] } };
  type Peer = { ipBlock?: { cidr: string; except?: string[] }; podSelector?: Selector };
  type Rule = { to?: Peer[]; from?: Peer[]; ports?: Array<{ port: number }> };

  it('is off in the stock overlays', () => {
    for (const overlay of OVERLAYS) {
      const objs = rendered.get(overlay)!;
      expect(objs.filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] === 'searxng')).toEqual([]);
      expect((byName(objs, 'ConfigMap', 'trawl-config')!.data as Record<string, string>).TRAWL_SEARXNG_URL).toBeUndefined();
    }
  });

  it('runs the pinned image of docker-compose.yml with infra/searxng/settings.yml (JSON on, limiter off) and the key from its Secret', () => {
    const c = podSpecOf(deployment).containers[0]! as Container & { env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }> };
    const compose = YAML.parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, { image?: string }> };
    expect(c.image).toMatch(/^searxng\/searxng:\d{4}\.\d+\.\d+(-[0-9a-f]{7,})?$/);
    expect(c.image).toBe(compose.services.searxng!.image);
    const cm = byName(objects, 'ConfigMap', 'trawl-searxng-settings')!;
    const copy = YAML.parse((cm.data as Record<string, string>)['settings.yml']!) as unknown;
    expect(copy).toEqual(settings);
    expect(settings.search.formats).toContain('json');
    expect(settings.server.limiter).toBe(false);
    const mount = c.volumeMounts?.find((m) => m.mountPath === '/etc/searxng/settings.yml') as { name: string; subPath?: string } | undefined;
    expect(mount?.subPath).toBe('settings.yml');
    const volume = (podSpecOf(deployment).volumes as Array<{ name: string; configMap?: { name: string } }>).find((v) => v.name === mount?.name);
    expect(volume?.configMap?.name).toBe('trawl-searxng-settings');
    const secret = c.env.find((e) => e.name === 'SEARXNG_SECRET')?.valueFrom?.secretKeyRef;
    expect(secret).toEqual({ name: 'trawl-searxng', key: 'SEARXNG_SECRET' });
    expect(c.readinessProbe?.httpGet?.path).toBe('/healthz');
    expect(portNumber(c, c.readinessProbe!.httpGet!.port)).toBe(settings.server.port);
  });

  it('points the workers at its Service (TRAWL_SEARXNG_URL) and lets only workers reach it', () => {
    const svc = byName(objects, 'Service', 'trawl-searxng')!;
    const port = spec<{ ports: Array<{ port: number }> }>(svc).ports[0]!.port;
    expect((byName(objects, 'ConfigMap', 'trawl-config')!.data as Record<string, string>).TRAWL_SEARXNG_URL).toBe(`http://trawl-searxng:${port}`);
    const workers = trawlDeployments(objects).filter((d) => roleOf(d) !== 'api');
    // The worker egress policy allows its pods on its port...
    const workerEgress = spec<{ egress: Rule[] }>(byName(objects, 'NetworkPolicy', 'trawl-workers')!).egress;
    expect(workerEgress.some((r) => r.to?.some((t) => t.podSelector && selects(t.podSelector, labels)) && r.ports?.some((p) => p.port === settings.server.port))).toBe(true);
    // ...and its own policy takes connections from workers only, and reaches no private address.
    const policy = ofKind(objects, 'NetworkPolicy').find((p) => selects(spec<{ podSelector: Selector }>(p).podSelector, labels))!;
    const s = spec<{ policyTypes: string[]; ingress: Rule[]; egress: Rule[] }>(policy);
    expect([...s.policyTypes].sort()).toEqual(['Egress', 'Ingress']);
    const from = s.ingress.flatMap((r) => r.from ?? []);
    for (const w of workers) expect(from.some((f) => f.podSelector && selects(f.podSelector, podLabels(w)))).toBe(true);
    for (const d of trawlDeployments(objects).filter((x) => roleOf(x) === 'api')) expect(from.some((f) => f.podSelector && selects(f.podSelector, podLabels(d)))).toBe(false);
    const blocks = s.egress.flatMap((r) => r.to ?? []).flatMap((p) => (p.ipBlock ? [p.ipBlock] : []));
    for (const address of PROBE_ADDRESSES) {
      const open = blocks.filter((b) => inCidr(address, b.cidr) && !(b.except ?? []).some((e) => inCidr(address, e)));
      expect({ address, allowedBy: open.map((b) => b.cidr) }).toEqual({ address, allowedBy: [] });
    }
  });

  it('is documented in infra/k8s/README.md', () => {
    const readme = read('infra/k8s/README.md');
    expect(readme).toContain('components/searxng');
    expect(readme).toContain('create secret generic trawl-searxng');
  });
});

describe('test renderer against kubectl kustomize', () => {
  const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  const available = kubectl.status === 0;

  it.each([...OVERLAYS, WITH_SEARXNG])('renders overlay %s exactly as `kubectl kustomize` does', (overlay) => {
    if (!available) {
      console.warn('SKIPPED comparison with `kubectl kustomize`: no kubectl on PATH (the test renderer alone rendered the overlays)');
      return;
    }
    const res = spawnSync('kubectl', ['kustomize', kustomizeDir.get(overlay)!], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
    expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: '' });
    const key = (o: K8sObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    // kustomize wraps long base64 values of Secrets at 76 characters; decoders ignore the line breaks.
    const unwrap = (o: K8sObject) => {
      if (o.kind === 'Secret' && o.data) o.data = Object.fromEntries(Object.entries(o.data as Record<string, string>).map(([k, v]) => [k, v.replace(/\s+/g, '')]));
      return o;
    };
    const theirs = new Map(YAML.parseAllDocuments(res.stdout).map((d) => unwrap(d.toJS() as K8sObject)).map((o) => [key(o), o]));
    const ours = new Map(rendered.get(overlay)!.map((o) => [key(o), o]));
    expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
    for (const [k, o] of ours) expect({ object: k, rendered: o }).toEqual({ object: k, rendered: theirs.get(k) });
  });
});
