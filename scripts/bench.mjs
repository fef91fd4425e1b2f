// `npm run bench`: bootstrap (build), then every benchmark in scripts/bench/, one after the other so
// they do not compete for the 2 cores. Each prints a markdown table and writes .bench/<name>.json.
// Pass a name to run one: `npm run bench -- scrape`. Corpora are read from ../shared/corpora.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { bootstrap, ROOT } from './bootstrap.mjs';

bootstrap({ chromium: false });
const only = process.argv[2];
const benches = readdirSync(join(ROOT, 'scripts/bench')).filter((f) => f.endsWith('.bench.mjs')).sort();
for (const file of benches) {
  if (only && !file.startsWith(only)) continue;
  process.stdout.write(`\n# ${file}\n`);
  execFileSync(process.execPath, [join(ROOT, 'scripts/bench', file)], { stdio: 'inherit', cwd: ROOT });
}
