import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folders of the shared corpora (`../shared/corpora` next to the repository on development
 * machines; absent in CI) named by `names`, and whether all of them are there.
 */
export function corpusDirs(names: readonly string[]): { dirs: string[]; present: boolean } {
  const root = join(dirname(fileURLToPath(import.meta.url)), '../../../../shared/corpora');
  const dirs = names.map((n) => join(root, n));
  return { dirs, present: dirs.every((d) => existsSync(d)) };
}

/** Every `.html` / `.htm` file under `dir`, depth first. */
export function htmlFilesUnder(dir: string, into: string[] = []): string[] {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) htmlFilesUnder(p, into);
    else if (/\.html?$/.test(e.name)) into.push(p);
  }
  return into;
}
