import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ImapFlow, type ImapFlowOptions } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAPFLOW_FILES, MARK, patchImapflow } from '../../scripts/patch-dependencies.mjs';
import { generateMessages, seedMaildir, startDovecot, type Dovecot } from '../rig/index.ts';

/**
 * Decision 0154: `npm ci` patches imapflow so that a response's log line is not compiled when the client logs
 * nothing (`logger: false`, as every client of ours). The patch must have been made on this install, change nothing
 * a client with a logger sees, and touch nothing but the text it was written for.
 */
const imapflowRoot = dirname(dirname(dirname(createRequire(import.meta.url).resolve('imapflow'))));

// The block as imapflow 2.1.2 ships it in each build.
const ORIGINAL = (compiler: string) =>
  [
    '        let logCompiled = await ' + compiler + '(parsed, {',
    '            isLogging: true',
    '        });',
    "        if (/^\\d+$/.test(parsed.command || '') && parsed.attributes && parsed.attributes[0] && parsed.attributes[0].value === 'FETCH') {",
    '            // too many FETCH responses, might want to filter these out',
    "            this.log.trace({ src: 's', msg: logCompiled.toString(), cid: this.id, nullBytesRemoved: parsed.nullBytesRemoved });",
    '        }',
    '        else {',
    "            this.log.debug({ src: 's', msg: logCompiled.toString(), cid: this.id, nullBytesRemoved: parsed.nullBytesRemoved });",
    '        }',
    '',
  ].join('\n');
const around = (block: string) => `    async handleResponse(data) {\n${block}        // IMAP "+"\n    }\n`;

describe('the imapflow patch (decision 0154)', () => {
  it('is made on this install, in both of its builds, once each', () => {
    for (const file of IMAPFLOW_FILES) {
      const text = readFileSync(join(imapflowRoot, file), 'utf8');
      expect(text.split(MARK).length - 1, file).toBe(1);
      expect(text).toContain(
        `// ${MARK}\n        if (this.options.logger !== false) {\n        let logCompiled`,
      );
    }
  });

  it('wraps exactly the response log block, in either build, and is made once', () => {
    for (const compiler of ['compiler', '(0, imap_handler_js_1.compiler)']) {
      const text = around(ORIGINAL(compiler));
      const patched = patchImapflow(text);
      expect(patched).toBe(
        around(
          `        // ${MARK}\n        if (this.options.logger !== false) {\n${ORIGINAL(compiler)}        }\n`,
        ),
      );
      expect(patchImapflow(patched!)).toBe(patched);
    }
  });

  it('leaves text it was not written for alone: changed, or found twice', () => {
    expect(
      patchImapflow(around(ORIGINAL('compiler').replace('this.log.trace', 'this.log.debug'))),
    ).toBeUndefined();
    expect(patchImapflow(around(''))).toBeUndefined();
    expect(patchImapflow(around(ORIGINAL('compiler') + ORIGINAL('compiler')))).toBeUndefined();
  });
});

describe('imapflow patched, against Dovecot', () => {
  let dovecot: Dovecot;
  beforeAll(async () => {
    dovecot = await startDovecot({ users: { patched: 'pw-patched' } });
    await seedMaildir({
      maildir: dovecot.maildirOf('patched'),
      messages: generateMessages(3, { seed: 154 }),
    });
  });
  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- beforeAll may have failed
    await dovecot?.stop();
  });

  const fetchAll = async (logger: ImapFlowOptions['logger']) => {
    const c = new ImapFlow({
      host: '127.0.0.1',
      port: dovecot.port,
      secure: false,
      auth: { user: 'patched', pass: 'pw-patched' },
      logger,
    });
    await c.connect();
    const lock = await c.getMailboxLock('INBOX');
    const subjects: string[] = [];
    try {
      for await (const m of c.fetch('1:*', { uid: true, envelope: true, flags: true }))
        subjects.push(m.envelope?.subject ?? '');
    } finally {
      lock.release();
      await c.logout();
    }
    return subjects;
  };

  it('a client with a logger still gets every response line, FETCH ones at trace level', async () => {
    const lines: Record<'trace' | 'debug', string[]> = { trace: [], debug: [] };
    const keep = (level: 'trace' | 'debug') => (o: { msg?: string }) => lines[level].push(o.msg ?? '');
    const logger = {
      trace: keep('trace'),
      debug: keep('debug'),
      info: () => {},
      warn: () => {},
      error: () => {},
    };
    const subjects = await fetchAll(logger);
    expect(subjects).toHaveLength(3);
    expect(lines.trace.filter((l) => /^\* \d+ FETCH \(/.test(l))).toHaveLength(3);
    expect(lines.debug.some((l) => / OK /.test(l))).toBe(true);
  });

  it('a client that logs nothing reads the same messages', async () => {
    const logger = { trace: () => {}, debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
    expect(await fetchAll(false)).toEqual(await fetchAll(logger));
  });
});
