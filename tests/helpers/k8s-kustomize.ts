// A small kustomize for tests: exactly the features infra/k8s uses, so overlays can be rendered and
// checked on machines without the kustomize binary (CI). Anything else throws, so a manifest change
// that needs more cannot pass unnoticed. tests/k8s.int.test.ts compares it with `kubectl kustomize`
// when kubectl is present.
//
// Supported: resources (files and directories), components, namespace, labels (includeSelectors:
// false, optional includeTemplates), images (name, newName, newTag), patches (RFC 6902 operation
// lists, from a file or inline, with a target by kind and/or name), and configMapGenerator/
// secretGenerator (envs, literals) with disableNameSuffixHash.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import YAML from 'yaml';

/** A Kubernetes object as parsed from YAML. */
export type K8sObject = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
};

interface PatchEntry {
  path?: string;
  patch?: string;
  target?: { kind?: string; name?: string };
}
interface GeneratorEntry {
  name: string;
  envs?: string[];
  literals?: string[];
  type?: string;
  options?: { disableNameSuffixHash?: boolean };
}
interface Kustomization {
  kind?: string;
  resources?: string[];
  components?: string[];
  namespace?: string;
  labels?: Array<{ pairs: Record<string, string>; includeSelectors?: boolean; includeTemplates?: boolean }>;
  images?: Array<{ name: string; newName?: string; newTag?: string }>;
  patches?: PatchEntry[];
  configMapGenerator?: GeneratorEntry[];
  secretGenerator?: GeneratorEntry[];
}

const KNOWN_KEYS = new Set([
  'apiVersion', 'kind', 'resources', 'components', 'namespace', 'labels', 'images', 'patches', 'configMapGenerator', 'secretGenerator',
]);
/** Kinds without a namespace (the namespace transformer leaves them alone). */
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'PersistentVolume', 'StorageClass', 'CustomResourceDefinition']);

/** Every document of a YAML file, empty documents dropped. */
export function readYamlDocuments(file: string): unknown[] {
  return YAML.parseAllDocuments(readFileSync(file, 'utf8'))
    .map((doc) => {
      if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0]!.message}`);
      return doc.toJS() as unknown;
    })
    .filter((d) => d !== null && d !== undefined);
}

function readKustomization(dir: string): Kustomization {
  const file = join(dir, 'kustomization.yaml');
  if (!existsSync(file)) throw new Error(`no kustomization.yaml in ${dir}`);
  const k = YAML.parse(readFileSync(file, 'utf8')) as Kustomization;
  for (const key of Object.keys(k)) if (!KNOWN_KEYS.has(key)) throw new Error(`${file}: kustomize feature "${key}" is not supported by the test renderer`);
  return k;
}

/** The patch files and env files a kustomization refers to (not Kubernetes objects themselves). */
export function referencedFiles(dir: string): string[] {
  const k = readKustomization(dir);
  const gens = [...(k.configMapGenerator ?? []), ...(k.secretGenerator ?? [])];
  return [
    ...(k.patches ?? []).filter((p) => p.path).map((p) => resolve(dir, p.path!)),
    ...gens.flatMap((g) => (g.envs ?? []).map((e) => resolve(dir, e))),
  ];
}

/** Renders the kustomization in `dir` like `kustomize build` does for the supported subset. */
export function renderKustomization(dir: string): K8sObject[] {
  const k = readKustomization(dir);
  if (k.kind === 'Component') throw new Error(`${dir} is a Component: render the kustomization that uses it`);
  let objects: K8sObject[] = [];
  for (const res of k.resources ?? []) objects.push(...loadResource(resolve(dir, res)));
  // Components run after the resources are gathered and before this kustomization's own transformers.
  for (const comp of k.components ?? []) objects = applyComponent(resolve(dir, comp), objects);
  objects.push(...generate(dir, k));
  return transform(dir, k, objects);
}

function loadResource(path: string): K8sObject[] {
  if (statSync(path).isDirectory()) return renderKustomization(path);
  return readYamlDocuments(path).map((o) => asObject(o, path));
}

function applyComponent(dir: string, objects: K8sObject[]): K8sObject[] {
  const k = readKustomization(dir);
  if (k.kind !== 'Component') throw new Error(`${dir} is listed under components but is not a Component`);
  const all = [...objects];
  for (const res of k.resources ?? []) all.push(...loadResource(resolve(dir, res)));
  all.push(...generate(dir, k));
  return transform(dir, k, all);
}

function asObject(o: unknown, where: string): K8sObject {
  const obj = o as Partial<K8sObject>;
  if (typeof obj !== 'object' || !obj.apiVersion || !obj.kind || !obj.metadata?.name) throw new Error(`${where}: not a Kubernetes object`);
  return obj as K8sObject;
}

function generate(dir: string, k: Kustomization): K8sObject[] {
  const out: K8sObject[] = [];
  const entries = (g: GeneratorEntry): Array<[string, string]> => {
    if (!g.options?.disableNameSuffixHash) throw new Error(`generator ${g.name}: only disableNameSuffixHash: true is supported`);
    const pairs: Array<[string, string]> = [];
    const addLine = (line: string) => {
      const eq = line.indexOf('=');
      if (eq <= 0) throw new Error(`generator ${g.name}: bad line "${line}"`);
      pairs.push([line.slice(0, eq).trim(), line.slice(eq + 1)]);
    };
    for (const env of g.envs ?? []) {
      for (const raw of readFileSync(resolve(dir, env), 'utf8').split('\n')) {
        const line = raw.trim();
        if (line && !line.startsWith('#')) addLine(line);
      }
    }
    for (const lit of g.literals ?? []) addLine(lit);
    return pairs;
  };
  for (const g of k.configMapGenerator ?? []) {
    out.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: g.name }, data: Object.fromEntries(entries(g)) });
  }
  for (const g of k.secretGenerator ?? []) {
    const data = Object.fromEntries(entries(g).map(([key, v]) => [key, Buffer.from(v).toString('base64')]));
    out.push({ apiVersion: 'v1', kind: 'Secret', metadata: { name: g.name }, type: g.type ?? 'Opaque', data });
  }
  return out;
}

function transform(dir: string, k: Kustomization, input: K8sObject[]): K8sObject[] {
  let objects = input;
  if (k.namespace) {
    for (const o of objects) if (!CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
  }
  for (const l of k.labels ?? []) {
    if (l.includeSelectors) throw new Error('labels with includeSelectors: true are not supported by the test renderer');
    for (const o of objects) {
      o.metadata.labels = { ...o.metadata.labels, ...l.pairs };
      const template = podTemplate(o);
      if (l.includeTemplates && template) template.metadata = { ...template.metadata, labels: { ...template.metadata?.labels, ...l.pairs } };
    }
  }
  for (const image of k.images ?? []) {
    for (const o of objects) {
      for (const c of containersOf(o)) {
        const { name, tag } = splitImage(c.image);
        if (name !== image.name) continue;
        c.image = `${image.newName ?? name}${image.newTag ? `:${image.newTag}` : tag ? `:${tag}` : ''}`;
      }
    }
  }
  for (const p of k.patches ?? []) objects = applyPatch(dir, p, objects);
  return objects;
}

function applyPatch(dir: string, entry: PatchEntry, objects: K8sObject[]): K8sObject[] {
  const text = entry.path ? readFileSync(resolve(dir, entry.path), 'utf8') : entry.patch;
  if (!text) throw new Error(`${dir}: a patch needs path or patch`);
  const patch = YAML.parse(text) as unknown;
  if (Array.isArray(patch)) {
    if (!entry.target?.kind && !entry.target?.name) throw new Error(`${dir}: an RFC 6902 patch needs a target`);
    const targets = objects.filter((o) => matches(o, entry.target!));
    if (!targets.length) throw new Error(`${dir}: patch ${entry.path ?? ''} matches no object`);
    for (const o of targets) for (const op of patch as JsonPatchOp[]) applyJsonPatchOp(o, op);
    return objects;
  }
  throw new Error(`${dir}: patch ${entry.path ?? ''}: only RFC 6902 operation lists are supported by the test renderer`);
}

const matches = (o: K8sObject, t: { kind?: string; name?: string }) => (!t.kind || o.kind === t.kind) && (!t.name || o.metadata.name === t.name);

interface JsonPatchOp {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

/** RFC 6902 add / replace / remove (the operations the overlays use). */
function applyJsonPatchOp(doc: Record<string, unknown>, op: JsonPatchOp): void {
  const tokens = op.path.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = tokens.pop();
  if (last === undefined) throw new Error(`bad patch path ${op.path}`);
  let parent: unknown = doc;
  for (const t of tokens) {
    parent = Array.isArray(parent) ? parent[Number(t)] : (parent as Record<string, unknown> | undefined)?.[t];
    if (parent === undefined || parent === null || typeof parent !== 'object') throw new Error(`patch path ${op.path}: ${t} does not exist`);
  }
  if (Array.isArray(parent)) {
    const index = last === '-' ? parent.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) throw new Error(`patch path ${op.path}: bad index`);
    if (op.op === 'add') parent.splice(index, 0, structuredClone(op.value));
    else if (index >= parent.length) throw new Error(`patch path ${op.path}: no element ${index}`);
    else if (op.op === 'replace') parent[index] = structuredClone(op.value);
    else parent.splice(index, 1);
    return;
  }
  const record = parent as Record<string, unknown>;
  if (op.op !== 'add' && !(last in record)) throw new Error(`patch path ${op.path}: nothing to ${op.op}`);
  if (op.op === 'remove') delete record[last];
  else record[last] = structuredClone(op.value);
}

interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: { containers: Array<{ name: string; image: string }>; initContainers?: Array<{ name: string; image: string }> };
}

/** The pod template of a workload (Deployment, StatefulSet...), if it has one. */
export function podTemplate(o: K8sObject): PodTemplate | undefined {
  return (o.spec as { template?: PodTemplate } | undefined)?.template;
}

function containersOf(o: K8sObject): Array<{ name: string; image: string }> {
  const spec = podTemplate(o)?.spec;
  return spec ? [...spec.containers, ...(spec.initContainers ?? [])] : [];
}

/** `registry/name:tag` -> name and tag (a registry port is not a tag). */
export function splitImage(image: string): { name: string; tag?: string } {
  const at = image.lastIndexOf(':');
  if (at > image.lastIndexOf('/')) return { name: image.slice(0, at), tag: image.slice(at + 1) };
  return { name: image };
}
