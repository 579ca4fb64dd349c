import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../adapters/storage/index.ts';
import { migrationsFor } from '../../adapters/storage/migrations/index.ts';
import type { App } from '../../app.ts';
import { call, createTestApp } from '../../../test/support/test-app.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';

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

  it('unknown routes answer a JSON 404', async () => {
    app = await createTestApp();
    const res = await call(app, '/nope');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'not_found', error_description: 'No such route.' });
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
