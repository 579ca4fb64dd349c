import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../adapters/storage/index.ts';
import { migrationsFor } from '../../adapters/storage/migrations/index.ts';
import type { App } from '../../app.ts';
import { call, createTestApp } from '../../../test/support/test-app.ts';
import { recordingLogger } from '../../../test/support/recording-logger.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { agentOn, expectToolOk, firstAttachmentLink } from '../../../test/support/tool-caller.ts';

let app: App | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe('root HTTP app', () => {
  it('/healthz and /readyz answer 200 with a request id', async () => {
    app = await createTestApp();
    const health = await call(app, '/healthz');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect(health.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
    const ready = await call(app, '/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
  });

  it('/readyz answers 503 naming pending migrations until they run', async () => {
    const db = openDatabase({ kind: 'sqlite', path: `${tempDir()}/fresh.db` });
    app = await createTestApp({ overrides: { db, migrate: false } });
    const res = await call(app, '/readyz');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({
      status: 'unavailable',
      reason: `pending migrations: ${Object.keys(migrationsFor('sqlite')).join(', ')}`,
    });
    await db.close();
  });

  it('/readyz answers 503 when the database is gone, without leaking the error', async () => {
    app = await createTestApp();
    await app.db.close();
    const res = await call(app, '/readyz');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'unavailable', reason: 'database unreachable' });
  });

  // Decision 0136.
  it('logs at debug the probes of load balancers and scrapers that find all well, and the rest as before', async () => {
    const { log, lines } = recordingLogger();
    app = await createTestApp({ overrides: { log } });
    for (let i = 0; i < 3; i++) {
      expect((await call(app, '/healthz')).status).toBe(200);
      expect((await call(app, '/readyz')).status).toBe(200);
    }
    expect((await call(app, '/signin')).status).toBe(200);
    await app.db.close();
    expect((await call(app, '/readyz')).status).toBe(503);
    const access = lines.filter((l) => /"request( failed)?"/.test(l));
    const at = (level: string, path: string) =>
      access.filter((l) => l.startsWith(`${level} `) && l.includes(`"path":"${path}"`)).length;
    expect([at('debug', '/healthz'), at('debug', '/readyz'), at('info', '/healthz')]).toEqual([3, 3, 0]);
    // The page as before; a readiness check that fails, as every answer of 500 and more.
    expect([at('info', '/signin'), at('error', '/readyz')]).toEqual([1, 1]);
  });

  it('unknown routes answer a JSON 404', async () => {
    app = await createTestApp();
    const res = await call(app, '/nope');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'not_found', error_description: 'No such route.' });
  });

  // Decision 0115: a download link is the whole credential to an attachment for ten minutes; the access line is read
  // by whoever reads the logs.
  it('keeps no token written in a path in its access line: a download link, a key pasted into a URL', async () => {
    const { log, lines } = recordingLogger();
    app = await createTestApp({ overrides: { log } });
    const { call: tool, key } = await agentOn(app);
    const inboxId = (expectToolOk(await tool('list_inboxes'))['inboxes'] as { id: string }[])[0]!.id;
    expectToolOk(await tool('sync_inbox', { inboxId }));
    const url = await firstAttachmentLink(tool, inboxId);
    const token = /att_[a-z0-9]{40}$/.exec(url)![0];
    expect((await app.fetch(new Request(url))).status).toBe(200);
    // Decoded before it is logged, so an escaped letter does not let the token through either.
    expect((await call(app, `/attachments/%61${token.slice(1)}`)).status).toBe(200);
    expect((await call(app, `/api/${key}`)).status).toBe(404);
    const logged = lines.join('\n');
    expect(logged).toContain('"path":"/attachments/att_…"');
    expect(logged).toContain('"path":"/api/itk_…"');
    expect(logged).not.toContain(token.slice(4));
    expect(logged).not.toContain(key.slice(4));
  });

  it('an unexpected error answers a JSON 500 with the request id and no stack', async () => {
    app = await createTestApp();
    app.http.get('/boom', () => {
      throw new Error('secret internals at /srv/app/src/x.ts:12');
    });
    const res = await call(app, '/boom');
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error).toBe('internal_error');
    expect(body.error_description).toContain(res.headers.get('x-request-id') ?? 'missing');
    expect(JSON.stringify(body)).not.toMatch(/secret internals|\.ts:\d+/);
  });
});
