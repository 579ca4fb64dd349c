// Run by `npm install` and `npm ci` (postinstall), on whatever Node npm runs on: plain JavaScript, Node's own modules.
//
// One change to an installed package, made where its text is exactly as expected and otherwise left alone with a
// warning (decision 0154). It changes no behaviour: the package works the same unpatched, only slower, so an install
// with --ignore-scripts runs the same service. `test/imap/imapflow-patch.test.ts` fails if this install is not
// patched, so a new version of the package that no longer matches is noticed.
//
// imapflow compiles every response it parses back into IMAP text for its log, before its logger decides whether to
// write the line — also for every FETCH response, a line logged at trace level, and also with `logger: false`, where
// no line is ever written. We open every client with `logger: false`; that compile was ~30% of a raw FETCH's CPU
// (20,000 message summaries from Dovecot: 2.7 s → 1.85 s, and the same share of every sync).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const MARK = 'inbox-triage: no log line compiled with logging off (decision 0154)';

// The response's log line, compiled and logged at trace (a FETCH) or debug level; the compiler is imported under a
// name that differs between the ES module and CommonJS builds.
const RESPONSE_LOG =
  /^( +)let logCompiled = await .+\(parsed, \{\n +isLogging: true\n +\}\);\n(?: +if \(\/\^\\d\+\$\/\.test\(parsed\.command \|\| ''\).*\n.*\n +this\.log\.trace\(.*\n +\}\n +else \{\n +this\.log\.debug\(.*\n +\}\n)/m;

/**
 * The patched text, the same text when already patched, or undefined when it is not the text the patch was written for.
 * @param {string} text
 * @returns {string | undefined}
 */
export function patchImapflow(text) {
  if (text.includes(MARK)) return text;
  const found = RESPONSE_LOG.exec(text);
  if (found === null || RESPONSE_LOG.exec(text.slice(found.index + found[0].length)) !== null)
    return undefined;
  const [whole, indent] = found;
  const patched = `${indent}// ${MARK}\n${indent}if (this.options.logger !== false) {\n${whole}${indent}}\n`;
  return text.slice(0, found.index) + patched + text.slice(found.index + whole.length);
}

export const IMAPFLOW_FILES = ['dist/esm/imap-flow.js', 'dist/cjs/imap-flow.js'];

function main() {
  // import.meta.dirname and .filename are newer than some Node that may run npm.
  const root = join(fileURLToPath(new URL('..', import.meta.url)), 'node_modules', 'imapflow');
  for (const file of IMAPFLOW_FILES) {
    const path = join(root, file);
    /** @type {string} */
    let text;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      console.warn(`patch-dependencies: ${path} is not there; left alone.`);
      continue;
    }
    const patched = patchImapflow(text);
    if (patched === undefined)
      console.warn(
        `patch-dependencies: imapflow's ${file} is not the text the patch expects; left unpatched (slower, same behaviour).`,
      );
    else if (patched !== text) writeFileSync(path, patched);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
