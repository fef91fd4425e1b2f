// `npm run chaos -- [--runs N] [--stress] [--stress-seconds S]`: bootstrap, then the chaos integration
// test (worker SIGKILLs and a Redis restart during a 1,000-page crawl) N times in a row, stopping at the
// first failure. `--stress` keeps every core busy meanwhile (one busy-loop child per core, each ending
// by itself after `--stress-seconds`, default 3600, and killed when this script ends): the busy machine
// a fault window shows up on. Prints one line per run and a final `N passed, N failed` line; each run's
// output goes to a log file, named on failure.
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bootstrap, ROOT } from './bootstrap.mjs';

function parseArgs(argv) {
  const opts = { runs: 1, stress: false, stressSeconds: 3600 };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 1) throw new Error(`${a} needs a positive integer`);
      return v;
    };
    if (a === '--runs') opts.runs = value();
    else if (a === '--stress') opts.stress = true;
    else if (a === '--stress-seconds') opts.stressSeconds = value();
    else throw new Error(`unknown argument ${a} (use --runs N, --stress, --stress-seconds S)`);
  }
  return opts;
}

let opts;
try {
  opts = parseArgs(process.argv.slice(2));
} catch (err) {
  console.error(String(err.message));
  process.exit(2);
}

bootstrap({ chromium: false });

/** One busy loop per core, each bounded in time (it exits by itself even if this script is killed -9). */
const stressors = [];
function startStress(seconds) {
  const cores = availableParallelism();
  const code = `const end = Date.now() + ${seconds * 1000}; let x = 0; while (Date.now() < end) { for (let i = 0; i < 1e6; i++) x = (x + i) % 7919; }`;
  for (let i = 0; i < cores; i++) stressors.push(spawn(process.execPath, ['-e', code], { stdio: 'ignore' }));
  process.stdout.write(`[chaos] stress: ${cores} busy-loop processes (at most ${seconds} s)\n`);
}
function stopStress() {
  for (const child of stressors) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    stopStress();
    process.exit(130);
  });
}
process.on('exit', stopStress);

/** One jest run of the chaos test; its output goes to `logFile`. */
function runOnce(logFile) {
  const fd = openSync(logFile, 'w');
  const child = spawn(process.execPath, [
    '--experimental-vm-modules', 'node_modules/jest/bin/jest.js', '--selectProjects', 'integration', '--ci', '--runInBand', 'tests/chaos.int.test.ts',
  ], { cwd: ROOT, stdio: ['ignore', fd, fd], env: { ...process.env, NODE_NO_WARNINGS: '1', CHAOS_DEBUG: '1' } });
  return new Promise((resolve) => child.on('exit', (code, signal) => {
    closeSync(fd);
    resolve(code === 0 && signal === null);
  }));
}

if (opts.stress) startStress(opts.stressSeconds);
const dir = mkdtempSync(join(tmpdir(), 'trawl-chaos-'));
let passed = 0;
let failed = 0;
for (let run = 1; run <= opts.runs; run++) {
  const logFile = join(dir, `run-${run}.log`);
  const t0 = Date.now();
  const ok = await runOnce(logFile);
  const secs = ((Date.now() - t0) / 1000).toFixed(0);
  const faults = readFileSync(logFile, 'utf8').split('\n').filter((l) => l.startsWith('chaos: ')).map((l) => l.slice(7)).join(', ');
  process.stdout.write(`[chaos] run ${run}/${opts.runs}: ${ok ? 'passed' : 'FAILED'} in ${secs} s${faults ? ` (${faults})` : ''}\n`);
  if (ok) passed += 1;
  else {
    failed += 1;
    process.stdout.write(`[chaos] output of the failed run: ${logFile}\n`);
    break;
  }
}
stopStress();
process.stdout.write(`[chaos] ${passed} passed, ${failed} failed${opts.stress ? ' (with stress)' : ''}\n`);
process.exit(failed === 0 ? 0 : 1);
