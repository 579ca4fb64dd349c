import { describe, expect, it } from 'vitest';
import type { Logger } from '../../lib/logger.ts';
import { createTestApp } from '../../../test/support/test-app.ts';
import { hostCheck } from './host-check.ts';

function recording(): Logger & { warnings: { obj: object; msg: string | undefined }[] } {
  const warnings: { obj: object; msg: string | undefined }[] = [];
  const log: Logger & { warnings: typeof warnings } = {
    warnings,
    error: () => undefined,
    warn: (obj, msg) => {
      warnings.push({ obj, msg });
    },
    info: () => undefined,
    debug: () => undefined,
    child: () => log,
  };
  return log;
}

describe('a Host that is not BASE_URL’s', () => {
  it('is reported once per host, naming both, and never for BASE_URL’s own host', () => {
    const log = recording();
    const check = hostCheck('http://127.0.0.1:8787', log, false);
    const from = (host: string, forwarded?: string) => (name: string) =>
      name === 'host' ? host : name === 'x-forwarded-host' ? forwarded : undefined;
    check(from('127.0.0.1:8787'));
    expect(log.warnings).toEqual([]);
    check(from('localhost:8787'));
    check(from('LOCALHOST:8787'));
    expect(log.warnings).toHaveLength(1);
    expect(log.warnings[0]?.msg).toContain('localhost:8787');
    expect(log.warnings[0]?.msg).toContain('BASE_URL is http://127.0.0.1:8787');
    // Behind a trusted proxy the forwarded host counts.
    const proxied = recording();
    const behind = hostCheck('https://mail.example.test', proxied, true);
    behind(from('10.0.0.5:8787', 'mail.example.test'));
    expect(proxied.warnings).toEqual([]);
    behind(from('10.0.0.5:8787', 'other.example.test'));
    expect(proxied.warnings).toHaveLength(1);
  });

  it('on /mcp, through the app', async () => {
    const log = recording();
    const app = await createTestApp({ overrides: { log } });
    try {
      const post = (host: string) =>
        app.fetch(
          new Request(`${app.config.baseUrl}/mcp`, {
            method: 'POST',
            headers: {
              host,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
            body: '{}',
          }),
        );
      await post(new URL(app.config.baseUrl).host);
      await post('localhost:1');
      await post('localhost:1');
      const mine = log.warnings.filter((w) => w.msg?.includes('BASE_URL') === true);
      expect(mine).toHaveLength(1);
      expect(mine[0]?.obj).toEqual({ host: 'localhost:1', baseUrl: app.config.baseUrl });
    } finally {
      await app.close();
    }
  });
});
