// Static checks of the container setup: docker-compose.yml, infra/docker/Dockerfile and .dockerignore.
// No Docker engine is needed (none runs in CI): the files are parsed and cross-checked against the repo.
// When a Docker CLI with the compose plugin is present, `docker compose config --quiet` validates too.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import YAML from 'yaml';

const ROOT = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');

// ---------------------------------------------------------------------------------------------------
// Dockerfile parsing

interface Instruction {
  keyword: string;
  args: string;
}
interface Stage {
  name: string;
  from: string;
  /** The stage this one is built FROM, when it is a stage and not an image. */
  parent?: Stage;
  instructions: Instruction[];
}

function parseDockerfile(text: string): { args: Map<string, string>; stages: Stage[] } {
  // Logical lines: comment lines dropped (also inside continuations, as Docker does), `\` joined.
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    if (/^\s*#/.test(raw)) continue;
    const line = raw.replace(/\s+$/, '');
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1) + ' ';
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    if (full) logical.push(full);
  }
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of logical) {
    const m = /^(\S+)\s*(.*)$/s.exec(line)!;
    const keyword = m[1]!.toUpperCase();
    const rest = m[2]!;
    if (keyword === 'FROM') {
      const f = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!f) throw new Error(`cannot parse FROM ${rest}`);
      const from = f[1]!.replace(/\$\{(\w+)\}|\$(\w+)/g, (_s, a: string, b: string) => args.get(a ?? b) ?? '');
      stages.push({
        name: f[2] ?? String(stages.length),
        from,
        parent: stages.find((s) => s.name === from),
        instructions: [],
      });
    } else if (stages.length === 0) {
      if (keyword === 'ARG') {
        const [k, v] = rest.split('=');
        args.set(k!.trim(), (v ?? '').trim());
      }
    } else {
      stages.at(-1)!.instructions.push({ keyword, args: rest });
    }
  }
  return { args, stages };
}

/** The stage and its ancestors, the stage itself first. */
function lineage(stage: Stage): Stage[] {
  const out: Stage[] = [];
  for (let s: Stage | undefined = stage; s; s = s.parent) out.push(s);
  return out;
}
/** Every instruction the image of `stage` is made of, in build order. */
const allInstructions = (stage: Stage) => lineage(stage).reverse().flatMap((s) => s.instructions);
/** The effective value of a single-valued instruction (CMD, USER, ENTRYPOINT): the last one in build order. */
const effective = (stage: Stage, keyword: string) => allInstructions(stage).filter((i) => i.keyword === keyword).at(-1)?.args;
/** ENV names set for `stage` (KEY=value form), with their values. */
function envOf(stage: Stage): Map<string, string> {
  const env = new Map<string, string>();
  for (const i of allInstructions(stage).filter((x) => x.keyword === 'ENV')) {
    for (const m of i.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)) env.set(m[1]!, m[2]!.replace(/^"|"$/g, ''));
  }
  return env;
}
const mentionsChromium = (stage: Stage) => stage.instructions.some((i) => /chromium/i.test(i.args));

// ---------------------------------------------------------------------------------------------------
// Compose parsing

interface Service {
  image?: string;
  command?: string | string[];
  build?: { context?: string; dockerfile?: string; target?: string } | string;
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: unknown[];
  expose?: unknown[];
  container_name?: string;
  volumes?: unknown[];
  healthcheck?: { test?: string | string[] };
  depends_on?: Record<string, { condition?: string }> | string[];
  shm_size?: string | number;
  profiles?: string[];
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

function envNames(service: Service): Map<string, string> {
  const env = new Map<string, string>();
  const e = service.environment;
  if (Array.isArray(e)) {
    for (const item of e) {
      const [k, ...v] = item.split('=');
      env.set(k!, v.join('='));
    }
  } else if (e) {
    for (const [k, v] of Object.entries(e)) env.set(k, v === null ? '' : String(v));
  }
  return env;
}
const asText = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(' ') : (v ?? ''));

// ---------------------------------------------------------------------------------------------------

const composeText = read('docker-compose.yml');
const compose = YAML.parse(composeText, { merge: true }) as Compose;
const dockerfileText = read('infra/docker/Dockerfile');
const dockerfile = parseDockerfile(dockerfileText);
const stageByName = new Map(dockerfile.stages.map((s) => [s.name, s]));
// Every shared env fragment of packages/config (cache, queue, webhook...) besides the apps' own schemas.
const configFragments = readdirSync(join(ROOT, 'packages/config/src'))
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
  .map((f) => `packages/config/src/${f}`);
const configText = [
  'apps/api/src/config.ts', 'apps/worker/src/config.ts', ...configFragments, 'packages/blob-store/src/blob-store-env.ts',
].map(read).join('\n');
/** A variable the code reads: a key of one of the zod config schemas. */
const codeReads = (name: string) => new RegExp(`^\\s*${name}\\s*:`, 'm').test(configText);
const workerRoles = [...(/WORKER_ROLES\s*=\s*\[([^\]]*)\]/.exec(read('apps/worker/src/config.ts'))?.[1] ?? '').matchAll(/'([^']+)'|"([^"]+)"/g)].map(
  (m) => m[1] ?? m[2]!,
);
const browserRoleExists = workerRoles.includes('browser');
const composeComments = composeText
  .split('\n')
  .filter((l) => /^\s*#/.test(l) || / #/.test(l))
  .join('\n');
/** Deployment variables that must be names the code reads. */
const isAppVariable = (name: string) => /^(TRAWL_|REDIS_)/.test(name) || ['PORT', 'HOST', 'LOG_LEVEL', 'CACHE_REDIS_URL'].includes(name);

const SERVICES = ['redis', 'api', 'worker', 'browser-worker', 'documents-worker'];
const SCALABLE = ['worker', 'browser-worker', 'documents-worker'];
const TARGET_OF: Record<string, string> = { api: 'api', worker: 'worker', 'browser-worker': 'browser-worker', 'documents-worker': 'documents-worker' };
const buildOf = (service: string) => {
  const b = compose.services[service]!.build;
  return typeof b === 'string' ? { context: b } : (b ?? {});
};

describe('docker-compose.yml', () => {
  it('defines redis, api, worker and browser-worker', () => {
    for (const s of SERVICES) expect(Object.keys(compose.services)).toContain(s);
  });

  it('keeps the page cache in its own bounded, evicting Redis that every app service reaches', () => {
    const cache = compose.services['cache-redis']!;
    expect(cache.image).toMatch(/^redis:7(\.|-|$)/);
    const cmd = asText(cache.command);
    expect(cmd).toMatch(/--maxmemory-policy\s+allkeys-lru\b/);
    expect(cmd).toMatch(/--maxmemory\s+\S+/);
    for (const service of ['api', 'worker', 'browser-worker', 'documents-worker']) {
      expect(envNames(compose.services[service]!).get('CACHE_REDIS_URL')).toBe('redis://cache-redis:6379');
    }
  });

  it('runs Redis 7 with AOF, noeviction, a named volume and a ping healthcheck', () => {
    const redis = compose.services.redis!;
    expect(redis.image).toMatch(/^redis:7(\.|-|$)/);
    const cmd = asText(redis.command);
    expect(cmd).toMatch(/^redis-server\b/);
    expect(cmd).toMatch(/--appendonly\s+yes\b/);
    expect(cmd).toMatch(/--maxmemory-policy\s+noeviction\b/);
    const volume = String(redis.volumes?.[0] ?? '');
    const [volumeName, mountPoint] = volume.split(':');
    expect(mountPoint).toBe('/data');
    expect(Object.keys(compose.volumes ?? {})).toContain(volumeName);
    expect(asText(redis.healthcheck?.test)).toMatch(/redis-cli\s+ping/);
  });

  it('builds api, worker and browser-worker from infra/docker/Dockerfile with the repository as context', () => {
    for (const [service, target] of Object.entries(TARGET_OF)) {
      const build = buildOf(service);
      expect({ service, context: build.context, dockerfile: build.dockerfile, target: build.target }).toEqual({
        service,
        context: '.',
        dockerfile: 'infra/docker/Dockerfile',
        target,
      });
    }
  });

  it('publishes the API on 3002 and points every service at the redis service, started when healthy', () => {
    const api = compose.services.api!;
    expect((api.ports ?? []).map(String).some((p) => /:3002$/.test(p))).toBe(true);
    for (const service of ['api', 'worker', 'browser-worker', 'documents-worker']) {
      const s = compose.services[service]!;
      expect({ service, url: envNames(s).get('REDIS_URL') }).toEqual({ service, url: 'redis://redis:6379' });
      expect({ service, dependsOn: (s.depends_on as Record<string, { condition?: string }>)?.redis?.condition }).toEqual({
        service,
        dependsOn: 'service_healthy',
      });
    }
  });

  it('takes the admin key from the environment (required) and the bootstrap key optionally', () => {
    expect(composeText).toMatch(/TRAWL_ADMIN_KEY:\s*\$\{TRAWL_ADMIN_KEY:\?[^}]+\}/);
    expect(envNames(compose.services.api!).get('TRAWL_BOOTSTRAP_API_KEY')).toMatch(/^\$\{TRAWL_BOOTSTRAP_API_KEY(:-[^}]*)?\}$/);
  });

  it('keeps workers scalable: no host port bindings, no container_name', () => {
    for (const service of SCALABLE) {
      const s = compose.services[service]!;
      expect({ service, ports: s.ports ?? [] }).toEqual({ service, ports: [] });
      expect({ service, container_name: s.container_name }).toEqual({ service, container_name: undefined });
    }
  });

  it('health-checks /health/ready of the API (PORT) and of the workers (TRAWL_WORKER_PORT)', () => {
    const apiPort = envNames(compose.services.api!).get('PORT') ?? '3002';
    expect(asText(compose.services.api!.healthcheck?.test)).toContain(`:${apiPort}/health/ready`);
    for (const service of SCALABLE) {
      const port = envNames(compose.services[service]!).get('TRAWL_WORKER_PORT');
      expect({ service, port }).toEqual({ service, port: '3003' });
      expect(asText(compose.services[service]!.healthcheck?.test)).toContain(`:${port}/health/ready`);
    }
  });

  it('gives the browser worker a large /dev/shm', () => {
    expect(String(compose.services['browser-worker']!.shm_size)).toMatch(/^[1-9]\d*\s*g/i);
  });

  it('documents how to start and scale at the top of the file', () => {
    const header = composeText.split('\n').slice(0, 40).join('\n');
    expect(header).toMatch(/docker compose up/);
    expect(header).toMatch(/--scale worker=\d/);
    expect(header).toMatch(/--scale browser-worker=\d/);
  });

  it('sets only variables the code reads (config schemas), browser-only names excepted until the browser role exists', () => {
    for (const service of ['api', 'worker', 'browser-worker', 'documents-worker']) {
      for (const name of envNames(compose.services[service]!).keys()) {
        if (!isAppVariable(name)) continue;
        if (service === 'browser-worker' && !browserRoleExists && !codeReads(name)) {
          // Not read yet (later browser issue): must at least be documented in a compose comment.
          expect({ service, name, documented: composeComments.includes(name) }).toEqual({ service, name, documented: true });
          continue;
        }
        expect({ service, name, readByCode: codeReads(name) }).toEqual({ service, name, readByCode: true });
      }
    }
  });

  it('uses worker roles the worker knows; the browser worker is opt-in and flagged while its role does not exist', () => {
    const httpRoles = envNames(compose.services.worker!).get('TRAWL_WORKER_ROLES')!.split(',');
    for (const role of httpRoles) expect(workerRoles).toContain(role.trim());
    const browser = compose.services['browser-worker']!;
    expect(envNames(browser).get('TRAWL_WORKER_ROLES')).toBe('browser');
    expect(envNames(compose.services['documents-worker']!).get('TRAWL_WORKER_ROLES')).toBe('documents');
    expect(workerRoles).toContain('documents');
    if (!browserRoleExists) {
      // A container that exits at start must not be part of a plain `docker compose up`.
      expect(browser.profiles ?? []).not.toHaveLength(0);
      expect(composeComments).toMatch(/TRAWL_WORKER_ROLES=browser/);
      expect(composeComments).toMatch(/NOT USABLE YET/);
    }
  });

  it('offers an optional SearXNG (profile `search`): pinned image, JSON format on, limiter off, secret from the environment', () => {
    const searxng = compose.services.searxng!;
    expect(searxng.profiles).toContain('search');
    expect(searxng.image).toMatch(/^searxng\/searxng:\d{4}\.\d+\.\d+(-[0-9a-f]{7,})?$/);
    expect({ ports: searxng.ports ?? [], container_name: searxng.container_name }).toEqual({ ports: [], container_name: undefined });
    const mount = (searxng.volumes ?? []).map(String).find((v) => v.includes(':/etc/searxng/settings.yml'));
    expect(mount).toBe('./infra/searxng/settings.yml:/etc/searxng/settings.yml:ro');
    const settings = YAML.parse(read('infra/searxng/settings.yml')) as {
      server: { secret_key: string; limiter: boolean; port: number; bind_address: string };
      search: { formats: string[] };
    };
    expect(settings.search.formats).toContain('json');
    expect(settings.server.limiter).toBe(false);
    expect(settings.server.bind_address).toBe('0.0.0.0');
    // The key comes from SEARXNG_SECRET, passed through without a default (SearXNG refuses its placeholder).
    expect(settings.server.secret_key).toBe('ultrasecretkey');
    expect(Object.keys((searxng.environment ?? {}) as Record<string, unknown>)).toContain('SEARXNG_SECRET');
    expect(envNames(searxng).get('SEARXNG_SECRET')).toBe('');
    const url = `http://searxng:${settings.server.port}`;
    expect(envNames(searxng).get('SEARXNG_BASE_URL')?.replace(/\/$/, '')).toBe(url);
    expect(asText(searxng.healthcheck?.test)).toContain(`:${settings.server.port}/healthz`);
    // Off unless asked: the workers get the URL from the environment only, and the header says which one.
    for (const service of ['api', 'worker', 'browser-worker', 'documents-worker']) {
      expect({ service, url: envNames(compose.services[service]!).get('TRAWL_SEARXNG_URL') }).toEqual({ service, url: '${TRAWL_SEARXNG_URL:-}' });
    }
    expect(composeComments).toContain(`TRAWL_SEARXNG_URL=${url}`);
    expect(composeComments).toMatch(/--profile search up/);
  });

  it('is valid for `docker compose config` when a Docker CLI with compose is present', () => {
    const candidates: Array<[string, string[]]> = [
      ['docker', ['compose']],
      ['docker-compose', []],
    ];
    const cli = candidates.find(([cmd, pre]) => spawnSync(cmd, [...pre, 'version'], { encoding: 'utf8' }).status === 0);
    if (!cli) {
      console.warn('SKIPPED `docker compose config --quiet`: no docker CLI with the compose plugin (nor docker-compose) on this machine');
      return;
    }
    const [cmd, pre] = cli;
    const env = { ...process.env, TRAWL_ADMIN_KEY: 'test-admin-key' };
    const res = spawnSync(cmd, [...pre, '-f', 'docker-compose.yml', '--profile', 'browser', 'config', '--quiet'], { cwd: ROOT, env, encoding: 'utf8' });
    expect({ status: res.status, stderr: res.stderr }).toEqual({ status: 0, stderr: '' });
  });
});

describe('infra/docker/Dockerfile', () => {
  it('has every build target named in docker-compose.yml as a `FROM ... AS <target>` stage', () => {
    for (const service of Object.keys(TARGET_OF)) {
      const target = buildOf(service).target!;
      expect({ service, target, exists: stageByName.has(target) }).toEqual({ service, target, exists: true });
    }
  });

  it('uses node:20-bookworm-slim for every image stage and names stages uniquely', () => {
    for (const s of dockerfile.stages.filter((x) => !x.parent)) expect({ stage: s.name, from: s.from }).toEqual({ stage: s.name, from: 'node:20-bookworm-slim' });
    expect(new Set(dockerfile.stages.map((s) => s.name)).size).toBe(dockerfile.stages.length);
  });

  it('refers with every COPY --from to an earlier stage', () => {
    dockerfile.stages.forEach((stage, index) => {
      for (const i of stage.instructions.filter((x) => x.keyword === 'COPY')) {
        const from = /--from=(\S+)/.exec(i.args)?.[1];
        if (!from) continue;
        const at = dockerfile.stages.findIndex((s) => s.name === from);
        expect({ stage: stage.name, from, earlier: at >= 0 && at < index }).toEqual({ stage: stage.name, from, earlier: true });
      }
    });
  });

  it('pins pnpm to the packageManager version of package.json', () => {
    const pm = (JSON.parse(read('package.json')) as { packageManager: string }).packageManager;
    expect(`pnpm@${dockerfile.args.get('PNPM_VERSION')}`).toBe(pm);
  });

  it('copies every workspace manifest before `pnpm install --frozen-lockfile`, and the sources after it', () => {
    const build = stageByName.get('build')!;
    const steps = allInstructions(build);
    const installAt = steps.findIndex((i) => i.keyword === 'RUN' && /pnpm install --frozen-lockfile/.test(i.args));
    const buildAt = steps.findIndex((i) => i.keyword === 'RUN' && /pnpm exec turbo run build/.test(i.args));
    expect(installAt).toBeGreaterThanOrEqual(0);
    expect(buildAt).toBeGreaterThan(installAt);
    const copiedBeforeInstall = steps
      .slice(0, installAt)
      .filter((i) => i.keyword === 'COPY')
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    const manifests = ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', 'turbo.json', 'tsconfig*.json'];
    for (const group of ['apps', 'packages']) {
      for (const dir of readdirSync(join(ROOT, group))) {
        if (existsSync(join(ROOT, group, dir, 'package.json'))) manifests.push(`${group}/${dir}/package.json`);
      }
    }
    for (const m of manifests) expect({ manifest: m, copied: copiedBeforeInstall.includes(m) }).toEqual({ manifest: m, copied: true });
    // The patches pnpm applies while installing (`patchedDependencies`): their folder too.
    const patches = [...read('pnpm-workspace.yaml').matchAll(/^\s+\S+:\s*(\S+\.patch)\s*$/gm)].map((m) => m[1]!);
    expect(patches.length).toBeGreaterThan(0);
    for (const patch of patches) {
      expect(existsSync(join(ROOT, patch))).toBe(true);
      const copied = copiedBeforeInstall.includes(patch) || copiedBeforeInstall.includes(patch.split('/')[0]!);
      expect({ patch, copied }).toEqual({ patch, copied: true });
    }
    const copiedSources = steps
      .slice(installAt, buildAt)
      .filter((i) => i.keyword === 'COPY')
      .map((i) => i.args.split(/\s+/)[0]);
    expect(copiedSources).toEqual(expect.arrayContaining(['apps', 'packages']));
    // The runtime's node_modules come from a production-only install.
    const prod = allInstructions(stageByName.get('prod-deps')!);
    expect(prod.some((i) => i.keyword === 'RUN' && /pnpm install --frozen-lockfile --prod/.test(i.args))).toBe(true);
  });

  it('runs each target as its built entry point (apps/<app>/dist/main.js from apps/<app>/src/main.ts)', () => {
    const expected: Record<string, string> = { api: 'apps/api/dist/main.js', worker: 'apps/worker/dist/main.js', 'browser-worker': 'apps/worker/dist/main.js' };
    for (const [target, entry] of Object.entries(expected)) {
      const cmd = JSON.parse(effective(stageByName.get(target)!, 'CMD') ?? '[]') as string[];
      expect({ target, cmd }).toEqual({ target, cmd: ['node', entry] });
      const m = /^apps\/(\w+)\/dist\/(.+)\.js$/.exec(entry)!;
      expect(existsSync(join(ROOT, 'apps', m[1]!, 'src', `${m[2]}.ts`))).toBe(true);
      const tsconfig = read(`apps/${m[1]}/tsconfig.json`);
      expect(tsconfig).toMatch(/"rootDir":\s*"src"/);
      expect(tsconfig).toMatch(/"outDir":\s*"dist"/);
    }
  });

  it('runs targets as a non-root user under tini, with NODE_ENV=production', () => {
    for (const target of Object.values(TARGET_OF)) {
      const stage = stageByName.get(target)!;
      const user = effective(stage, 'USER');
      expect({ target, nonRoot: !!user && !['root', '0'].includes(user.split(':')[0]!) }).toEqual({ target, nonRoot: true });
      expect(effective(stage, 'ENTRYPOINT')).toMatch(/tini/);
      expect(allInstructions(stage).some((i) => i.keyword === 'RUN' && /apt-get install[^&]*\btini\b/.test(i.args))).toBe(true);
      expect(envOf(stage).get('NODE_ENV')).toBe('production');
    }
  });

  it('exposes 3002 for the API and TRAWL_WORKER_PORT (3003) for the workers, with health checks', () => {
    const exposes = (s: Stage) => allInstructions(s).filter((i) => i.keyword === 'EXPOSE').flatMap((i) => i.args.split(/\s+/));
    const api = stageByName.get('api')!;
    expect(exposes(api)).toContain('3002');
    expect(effective(api, 'HEALTHCHECK')).toMatch(/\/health\/live/);
    for (const target of ['worker', 'browser-worker', 'documents-worker']) {
      const s = stageByName.get(target)!;
      expect(envOf(s).get('TRAWL_WORKER_PORT')).toBe('3003');
      expect(exposes(s)).toContain('3003');
      expect(effective(s, 'HEALTHCHECK')).toMatch(/\/health\/live/);
    }
    expect(envOf(stageByName.get('worker')!).get('TRAWL_WORKER_ROLES')).toBe('http');
    expect(envOf(stageByName.get('browser-worker')!).get('TRAWL_WORKER_ROLES')).toBe('browser');
    expect(envOf(stageByName.get('documents-worker')!).get('TRAWL_WORKER_ROLES')).toBe('documents');
  });

  it('installs tesseract only in the documents-worker image', () => {
    const mentionsTesseract = (stage: Stage) => stage.instructions.some((i) => /tesseract-ocr/.test(i.args));
    const targetsOf = (stage: Stage) => Object.values(TARGET_OF).filter((t) => lineage(stageByName.get(t)!).includes(stage));
    for (const s of dockerfile.stages.filter(mentionsTesseract)) expect({ stage: s.name, targets: targetsOf(s) }).toEqual({ stage: s.name, targets: ['documents-worker'] });
    expect(envOf(stageByName.get('documents-worker')!).get('TRAWL_TESSERACT_PATH')).toBe('/usr/bin/tesseract');
  });

  it('installs Chromium only in the browser-worker image', () => {
    for (const target of ['api', 'worker']) {
      for (const s of lineage(stageByName.get(target)!)) {
        expect({ target, stage: s.name, chromium: mentionsChromium(s) }).toEqual({ target, stage: s.name, chromium: false });
      }
    }
    // Stages that bring Chromium must lead to browser-worker only.
    const targetsOf = (stage: Stage) => Object.values(TARGET_OF).filter((t) => lineage(stageByName.get(t)!).includes(stage));
    for (const s of dockerfile.stages.filter(mentionsChromium)) expect({ stage: s.name, targets: targetsOf(s) }).toEqual({ stage: s.name, targets: ['browser-worker'] });
    const browser = stageByName.get('browser-worker')!;
    const install = allInstructions(browser).find((i) => i.keyword === 'RUN' && /apt-get install/.test(i.args) && /\bchromium\b/.test(i.args));
    expect(install?.args).toMatch(/--no-install-recommends/);
    expect(install?.args).toMatch(/fonts-liberation/);
    expect(install?.args).toMatch(/fonts-noto-cjk/);
    expect(envOf(browser).get('TRAWL_CHROMIUM_PATH')).toBe('/usr/bin/chromium');
    // The standard browser is Chromium's headless shell (lighter per page); the stealth one the full browser.
    expect(install?.args).toMatch(/\bchromium-headless-shell\b/);
    expect(envOf(browser).get('TRAWL_CHROMIUM_HEADLESS_SHELL_PATH')).toBe('/usr/lib/chromium/chromium-headless-shell');
  });

  it('sets only variables the code reads (browser-only names excepted until the browser role exists)', () => {
    for (const target of Object.values(TARGET_OF)) {
      for (const name of envOf(stageByName.get(target)!).keys()) {
        if (!isAppVariable(name)) continue;
        if (target === 'browser-worker' && !browserRoleExists && !codeReads(name)) {
          const documented = dockerfileText.split('\n').some((l) => /^\s*#/.test(l) && l.includes(name));
          expect({ target, name, documented }).toEqual({ target, name, documented: true });
          continue;
        }
        expect({ target, name, readByCode: codeReads(name) }).toEqual({ target, name, readByCode: true });
      }
    }
  });
});

describe('.dockerignore', () => {
  const patterns = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

  it('keeps local dependencies, build outputs, data and VCS out of the build context', () => {
    for (const name of ['node_modules', 'dist', '.turbo', '.data', '.bench', '.git', 'coverage']) {
      expect({ name, ignored: patterns.includes(name) || patterns.includes(`**/${name}`) }).toEqual({ name, ignored: true });
    }
  });

  it('does not ignore anything the Dockerfile copies from the context', () => {
    const sources = dockerfile.stages
      .flatMap((s) => s.instructions)
      .filter((i) => i.keyword === 'COPY' && !/--from=/.test(i.args))
      .flatMap((i) => i.args.split(/\s+/).filter((a) => !a.startsWith('--')).slice(0, -1));
    for (const src of sources) {
      const top = src.split('/')[0]!;
      expect({ src, ignored: patterns.includes(src) || patterns.includes(top) }).toEqual({ src, ignored: false });
    }
  });
});
