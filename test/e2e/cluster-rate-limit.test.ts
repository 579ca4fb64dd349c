import { afterAll, describe, expect, it } from 'vitest';
import { freshPgDatabase } from '../rig/pg.ts';
import { startService, type ServiceProcess } from '../support/spawn-service.ts';
import { createTestApp, TEST_KEY } from '../support/test-app.ts';
import { tempDir } from '../support/temp-dir.ts';
import { createKeyViaPage, setUpOwner } from '../support/web-client.ts';

const running: ServiceProcess[] = [];
afterAll(async () => {
  for (const s of running) s.child.kill('SIGTERM');
  await Promise.all(running.map((s) => s.exited));
});

describe('two service processes on one PostgreSQL', () => {
  it('share one rate-limit budget per API key', async () => {
    const url = await freshPgDatabase();
    const admin = await createTestApp({ pgUrl: url });
    const key = await createKeyViaPage(await setUpOwner(admin));
    await admin.close();

    const env = {
      DATABASE_URL: url,
      RATE_LIMIT_API_PER_MINUTE: '5',
      ENCRYPTION_KEY: TEST_KEY.toString('base64'),
    };
    const [a, b] = await Promise.all([
      startService({ ...env, DATA_DIR: tempDir('n1-') }),
      startService({ ...env, DATA_DIR: tempDir('n2-') }),
    ]);
    running.push(a, b);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const node = i % 2 === 0 ? a : b;
      const res = await fetch(`${node.baseUrl}/api/inboxes`, { headers: { authorization: `Bearer ${key}` } });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    expect(statuses.slice(5)).toEqual([429, 429, 429, 429, 429]);
  });
});
