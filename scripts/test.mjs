// `npm test`: bootstrap, lint, import rules, type-check, then unit and integration tests.
import { execSync } from 'node:child_process';
import { bootstrap, ROOT } from './bootstrap.mjs';

bootstrap({ prometheus: true });
const steps = [
  ['lint', 'pnpm exec eslint . --max-warnings=0'],
  ['imports', 'node scripts/check-imports.mjs'],
  ['typecheck', 'node node_modules/typescript7/bin/tsc -p tsconfig.json --noEmit'],
  ['unit', 'node --experimental-vm-modules node_modules/jest/bin/jest.js --selectProjects unit --ci'],
  // --forceExit: a timer some test leaves behind must never keep CI waiting after the last test
  // (tests/sync-deadline-redis-down leaves a few Timeouts after a Redis down/up; not found yet).
  ['integration', 'node --experimental-vm-modules node_modules/jest/bin/jest.js --selectProjects integration --ci --runInBand --forceExit'],
];
const only = process.argv[2];
for (const [name, cmd] of steps) {
  if (only && only !== name) continue;
  process.stdout.write(`\n[test] ${name}: ${cmd}\n`);
  try {
    execSync(cmd, { stdio: 'inherit', cwd: ROOT, env: { ...process.env, NODE_NO_WARNINGS: '1' } });
  } catch {
    process.stderr.write(`\n[test] ${name} failed\n`);
    process.exit(1);
  }
}
