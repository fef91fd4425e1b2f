// `npm start`: bootstrap, then the all-in-one embedded server (API + workers + Redis child).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { bootstrap, ROOT } from './bootstrap.mjs';

bootstrap();
const child = spawn(process.execPath, [join(ROOT, 'apps/cli/dist/main.js'), 'start', ...process.argv.slice(2)], {
  stdio: 'inherit',
  cwd: ROOT,
});
// Forward signals so Ctrl-C / SIGTERM reach the server, which stops Redis before exiting.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
