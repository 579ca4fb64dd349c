import { describe, expect, it } from 'vitest';
import { healthRoutes } from './health-routes.ts';

describe('/readyz', () => {
  it('answers 503 in words when its check does not answer in time, rather than wait with it', async () => {
    const app = healthRoutes({ check: () => new Promise(() => undefined) }, 50);
    const res = await app.request('/readyz');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'unavailable', reason: 'no answer within 0.05 s' });
  });

  it('answers 200 when the check answers in time, and names what is missing when it does not hold', async () => {
    const ready = healthRoutes({ check: () => Promise.resolve(undefined) }, 1000);
    expect((await ready.request('/readyz')).status).toBe(200);
    const pending = healthRoutes({ check: () => Promise.resolve('job queue not running') }, 1000);
    const res = await pending.request('/readyz');
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual({ status: 'unavailable', reason: 'job queue not running' });
  });
});
