// `npm start`: bootstrap, then the all-in-one embedded server (API + workers + Redis child).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { bootstrap, ROOT } from './bootstrap.mjs';

bootstrap();
// The IPC channel ties the server to this launcher: if the launcher dies (even by SIGKILL), the
// channel closes and the server stops (Redis included) instead of running on as an orphan.
const child = spawn(process.execPath, [join(ROOT, 'apps/cli/dist/main.js'), 'start', ...process.argv.slice(2)], {
  stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  cwd: ROOT,
});
// Forward signals so Ctrl-C / SIGTERM reach the server, which stops Redis before exiting.
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig === 'SIGHUP' ? 'SIGTERM' : sig));
// npm 11 passes a SIGTERM on to its `sh -c` only, and exits: this launcher is then re-parented
// (orphaned). Its parent gone means whoever started it wants it stopped.
const parent = process.ppid;
const watch = setInterval(() => {
  if (process.ppid === parent) return;
  clearInterval(watch);
  child.kill('SIGTERM');
}, 500);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
