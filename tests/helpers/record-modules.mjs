// Preloaded with `node --import` into a spawned process (see tests/worker-module-loading.int.test.ts):
// appends every module the process loads to the file named by TRAWL_TEST_MODULE_LOG, one URL or path a
// line. ES modules are seen by a resolve hook (module.register), CommonJS ones by Module._resolveFilename.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const file = process.env.TRAWL_TEST_MODULE_LOG;
if (file) {
  register('./record-modules-hooks.mjs', import.meta.url, { data: { file } });
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function recordResolved(...args) {
    const resolved = resolveFilename.apply(this, args);
    appendFileSync(file, `${resolved}\n`);
    return resolved;
  };
}
