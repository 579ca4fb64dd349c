import { spawnSync } from 'node:child_process';
import { Writable } from 'node:stream';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { createPinoLogger, TurnBatchedLines } from './pino-logger.ts';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { lines, stream };
}

describe('pino logger redaction', () => {
  it('replaces credentials at the top level, one level down and in request headers', () => {
    const { lines, stream } = capture();
    const log = createPinoLogger('info', stream);
    log.info(
      {
        password: 'pw-1',
        nested: { token: 'itk_secret', apiKey: 'k-2' },
        req: { headers: { authorization: 'Bearer itk_x', cookie: 'sid=abc' } },
      },
      'x',
    );
    log.child({ reqId: 'r1' }).info({ body: { approvalCode: '123456', refreshToken: 'itr_y' } }, 'y');
    const text = lines.join('');
    for (const secret of ['pw-1', 'itk_secret', 'k-2', 'Bearer itk_x', 'sid=abc', '123456', 'itr_y']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
    expect(text).toContain('"reqId":"r1"');
  });
});

describe('errors in the log (decision 0134)', () => {
  it('leave out the values a database error quotes, and keep its code and what it names', async () => {
    const c = new pg.Client({ connectionString: await freshPgDatabase() });
    await c.connect();
    let failure: unknown;
    try {
      await c.query('create table drafts (subject text not null, body text not null)');
      await c.query("insert into drafts (subject, body) values ('Your biopsy results', null)");
    } catch (e) {
      failure = e;
    } finally {
      await c.end();
    }
    // What PostgreSQL said: the whole row, in the error's own fields.
    expect((failure as { detail?: string }).detail).toContain('Your biopsy results');
    const { lines, stream } = capture();
    createPinoLogger('info', stream).error({ err: failure, tool: 'create_draft' }, 'tool failed');
    const line = JSON.parse(lines.join('')) as { err: Record<string, unknown> };
    expect(lines.join('')).not.toContain('biopsy');
    expect(line.err).toMatchObject({
      type: 'DatabaseError',
      message: 'null value in column "body" of relation "drafts" violates not-null constraint',
      errorCode: '23502',
      table: 'drafts',
      column: 'body',
    });
    expect(line.err).not.toHaveProperty('detail');
  });

  it("keep a system error's code, which the redaction of OAuth codes hid", () => {
    const { lines, stream } = capture();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:993'), { code: 'ECONNREFUSED' });
    createPinoLogger('info', stream).warn({ err: refused, code: 'an-oauth-code' }, 'x');
    const line = JSON.parse(lines.join('')) as { err: Record<string, unknown>; code: string };
    expect(line.err['errorCode']).toBe('ECONNREFUSED');
    expect(line.code).toBe('[redacted]');
  });
});

describe('standard output lines', () => {
  function sink() {
    const writes: string[] = [];
    let flushed = 0;
    return {
      writes,
      flushes: () => flushed,
      write: (s: string) => {
        writes.push(s);
      },
      flushSync: () => {
        flushed++;
      },
    };
  }

  it('hands the lines of one turn of the event loop to the writer together, in order, at its end', async () => {
    const s = sink();
    const out = new TurnBatchedLines(s);
    out.write('a\n');
    out.write('b\n');
    out.write('c\n');
    expect(s.writes).toEqual([]);
    await new Promise((r) => setImmediate(r));
    expect(s.writes).toEqual(['a\nb\nc\n']);
    out.write('d\n');
    await new Promise((r) => setImmediate(r));
    expect(s.writes).toEqual(['a\nb\nc\n', 'd\n']);
  });

  it('writes what is pending when flushed synchronously', () => {
    const s = sink();
    const out = new TurnBatchedLines(s);
    out.write('last words\n');
    out.flushSync();
    expect(s.writes).toEqual(['last words\n']);
    expect(s.flushes()).toBe(1);
  });

  it('loses no line when the process exits in the same turn it logged', () => {
    const module = new URL('./pino-logger.ts', import.meta.url).href;
    const script = `
      const { createPinoLogger } = await import(${JSON.stringify(module)});
      const log = createPinoLogger('info');
      for (let i = 0; i < 500; i++) log.info({ i }, 'line');
      log.info({}, 'stopped');
      process.exit(0);`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; time: string; i?: number });
    const started = Date.now() - 60_000;
    expect(lines.every((l) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(l.time))).toBe(true);
    expect(Date.parse(lines.at(-1)?.time ?? '')).toBeGreaterThan(started);
    expect(lines).toHaveLength(501);
    expect(lines.slice(0, 500).map((l) => l.i)).toEqual([...Array(500).keys()]);
    expect(lines.at(-1)?.msg).toBe('stopped');
  });
});
