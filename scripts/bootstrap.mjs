// Prepares a fresh Debian/Ubuntu machine with only Node >= 20 to run Trawl: pnpm, redis-server and
// chromium (apt, as root; otherwise prints the command and stops), dependencies, build. Each step is
// skipped when already done, so `npm start` and `npm test` stay fast on a prepared machine.
// Dependency-free on purpose: it runs before anything is installed.
import { execSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PNPM_VERSION = '12.21.0';

function has(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function run(cmd, opts = {}) {
  process.stdout.write(`[bootstrap] ${cmd}\n`);
  execSync(cmd, { stdio: 'inherit', cwd: ROOT, ...opts });
}

function ensureNode() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 18)) {
    console.error(`Trawl needs Node.js >= 20.18 (this is ${process.versions.node}).`);
    process.exit(1);
  }
}

function ensurePnpm() {
  if (has('pnpm')) return;
  run(`npm install -g pnpm@${PNPM_VERSION}`);
}

/**
 * System packages from apt: redis-server always; chromium for the browser worker role, and Chromium's
 * headless shell (its standard browser, lighter per page; optional: without root it is only advised);
 * tesseract-ocr (with its English data) for OCR in the documents role; prometheus (its server and
 * `promtool`) for the tests that check the alert rules and run a real Prometheus against a cluster.
 */
function ensureSystemPackages({ chromium, prometheus }) {
  const missing = [];
  if (!has('redis-server')) missing.push('redis-server');
  if (chromium && !existsSync('/usr/bin/chromium') && !has('chromium')) missing.push('chromium');
  const shell = chromium && !existsSync('/usr/lib/chromium/chromium-headless-shell');
  if (!has('tesseract')) missing.push('tesseract-ocr');
  if (prometheus && !(has('promtool') && has('prometheus'))) missing.push('prometheus');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (missing.length > 0) {
    const cmd = `apt-get update && apt-get install -y ${missing.join(' ')}`;
    if (!isRoot || !has('apt-get')) {
      console.error(`Trawl needs ${missing.join(' and ')}. Install with:\n\n  sudo sh -c '${cmd}'\n\nthen run this command again.`);
      process.exit(1);
    }
    run(cmd, { env });
  }
  if (!shell) return;
  // Optional, in a command of its own: a distribution without the package still gets a working setup.
  const advice = '[bootstrap] chromium-headless-shell is not installed: the standard browser uses the full Chromium, slower per page (apt-get install chromium-headless-shell)';
  if (!isRoot || !has('apt-get')) {
    console.warn(advice);
    return;
  }
  try {
    run(`${missing.length > 0 ? '' : 'apt-get update && '}apt-get install -y chromium-headless-shell`, { env });
  } catch {
    console.warn(advice);
  }
}

function stamp(name, content) {
  const dir = join(ROOT, 'node_modules', '.trawl');
  const file = join(dir, name);
  const hash = createHash('sha256').update(content).digest('hex');
  const done = existsSync(file) && readFileSync(file, 'utf8') === hash;
  return { done, save: () => { mkdirSync(dir, { recursive: true }); writeFileSync(file, hash); } };
}

function ensureDependencies() {
  const lock = readFileSync(join(ROOT, 'pnpm-lock.yaml'), 'utf8');
  const s = stamp('install', lock + process.versions.node);
  if (s.done && existsSync(join(ROOT, 'node_modules', '.bin', 'turbo'))) return;
  run('pnpm install --frozen-lockfile');
  s.save();
}

function build() {
  // turbo caches by inputs: a no-op build takes about a second.
  run('pnpm exec turbo run build --output-logs=errors-only');
}

/** Everything `npm start` / `npm test` / `npm run bench` need before they run. */
export function bootstrap({ chromium = true, prometheus = false } = {}) {
  ensureNode();
  ensurePnpm();
  ensureSystemPackages({ chromium, prometheus });
  ensureDependencies();
  build();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) bootstrap();
