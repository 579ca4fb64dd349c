#!/usr/bin/env node
// Launcher. The service runs on the Node 24 that `npm ci` installs (the `node` package); a shell may start
// this file with an older system node, so re-execute under the pinned one instead of failing obscurely.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as nodeModule from 'node:module'; // a namespace: Node 20, which only re-executes, lacks some members
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const major = Number(process.versions.node.split('.')[0]);

if (major >= 24) {
  // V8's compiled code (and the type-stripped source) cached across starts, under the install's own node_modules
  // (never a shared temporary directory another user could write to): ~20 MB less memory and ~0.3 s less to ready
  // from the second start on (decision 0027).
  // NODE_DISABLE_COMPILE_CACHE=1 turns it off.
  nodeModule.enableCompileCache(join(root, 'node_modules', '.cache', 'inbox-triage-compile'));
  // The service as one bundled file, built on the first start after a change (decision 0035); from src/ otherwise.
  const { bundledMain } = await import('./bundle.ts');
  // eslint-disable-next-line no-restricted-properties -- read before the service (and its configuration) exists
  const main = bundledMain(root, process.env);
  await import(main === undefined ? join(root, 'src', 'main.ts') : pathToFileURL(main).href);
} else {
  const pinned = join(root, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(pinned)) {
    process.stderr.write(`inbox-triage: needs Node 24 (found ${process.version}); run "npm ci" first\n`);
    process.exit(2);
  }
  const child = spawn(pinned, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => child.kill(s));
  child.on('exit', (code, signal) => process.exit(code ?? (signal === null ? 1 : 128)));
}
