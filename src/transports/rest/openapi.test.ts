import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../app.ts';
import { fixedClock } from '../../lib/clock.ts';
import { bearer, call, createTestApp, TEST_RATE_LIMITS } from '../../../test/support/test-app.ts';
import { toolCaller } from '../../../test/support/tool-caller.ts';
import { createKeyViaPage, setUpOwner, WebClient } from '../../../test/support/web-client.ts';

// The OpenAPI document of /api: valid by a standard validator, and true of real answers — every route's success
// and every §7 row that /api can answer, each body checked against the schema the document gives for that
// path, method and status, and every documented response seen at least once.
describe('GET /api/openapi.json', () => {
  const clock = fixedClock(new Date('2030-01-01T00:00:00Z'));
  let app: App;
  let web: WebClient;
  let key: string;
  let doc: Record<string, unknown>;
  const seen: { path: string; method: string; res: Response }[] = [];
  const VALID = { to: 'sam@example.test', subject: 'Lunch?', text: 'Friday?' };

  const record = (path: string, method: string, res: Response) => {
    seen.push({ path, method, res });
  };
  const post = (inboxId: string, body: unknown, auth: string | null = key, raw?: string) =>
    call(app, `/api/inboxes/${inboxId}/draft`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(auth !== null && { authorization: `Bearer ${auth}` }),
      },
      body: raw ?? JSON.stringify(body),
    });

  beforeAll(async () => {
    app = await createTestApp({
      overrides: { clock },
      config: {
        rateLimits: { ...TEST_RATE_LIMITS, apiPerMinute: 30 },
      },
    });
    web = await setUpOwner(app);
    await app.services.accounts.setPlan('owner@example.test', 'pro');
    key = await createKeyViaPage(web);
    const res = await call(app, '/api/openapi.json');
    expect(res.status).toBe(200);
    doc = (await res.json()) as Record<string, unknown>;
  });
  afterAll(async () => {
    await app.close();
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(doc['openapi']).toBe('3.1.0');
  });

  it('describes every answer /api gives, success and every error of contract §7', async () => {
    const DRAFT = '/api/inboxes/{id}/draft';
    const list = await call(app, '/api/inboxes', bearer(key));
    record('/api/inboxes', 'get', list.clone());
    const { inboxes } = (await list.json()) as { inboxes: { id: string; isDemo: boolean }[] };
    const demo = inboxes.find((i) => i.isDemo)!.id;

    record(DRAFT, 'post', await post(demo, VALID)); // 201
    record(DRAFT, 'post', await post(demo, { to: 'a@b.test' })); // 400 invalid_request
    record(DRAFT, 'post', await post(demo, { ...VALID, subject: 'a\r\nBcc: x@y.test' })); // 400 draft_failed
    record(DRAFT, 'post', await post(demo, VALID, null)); // 401 missing_api_key
    record(DRAFT, 'post', await post(demo, VALID, 'itk_wrong')); // 401 invalid_api_key
    record(DRAFT, 'post', await post('inbox_00000000000000000000', VALID)); // 404
    record(DRAFT, 'post', await post(demo, VALID, key, 'x'.repeat(1_000_001))); // 413
    // 403 not_allowed: a key the person made without the power to write drafts (decision 0141).
    await web.get('/settings/advanced');
    await web.post('/settings/advanced/keys', { name: 'reader', choosing_powers: '1', power: ['tidy'] });
    await web.get('/settings/advanced');
    const reader = /itk_[a-z0-9]{40}/.exec(web.lastHtml)![0];
    record(DRAFT, 'post', await post(demo, VALID, reader));
    // 409 not_connected: an IMAP inbox added but never connected; 409 inbox_paused: the person paused the demo.
    const added = await toolCaller(app, key)('add_inbox', {
      label: 'Work',
      provider: 'imap',
      email: 'me@example.test',
      imapHost: '127.0.0.1',
      imapPort: 1,
    });
    record(DRAFT, 'post', await post((added.body['inbox'] as { id: string }).id, VALID));
    await web.get('/inboxes');
    expect((await web.post(`/inboxes/${demo}/pause`, {})).status).toBe(303);
    record(DRAFT, 'post', await post(demo, VALID));
    await web.get('/inboxes');
    expect((await web.post(`/inboxes/${demo}/resume`, {})).status).toBe(303);

    // Owner routes: with the session, without it, and with a bearer key.
    await web.get('/settings');
    const json = { 'content-type': 'application/json', 'x-csrf-token': web.csrf };
    const made = await web.request('/api/keys', { method: 'POST', headers: json, body: '{"name":"two"}' });
    record('/api/keys', 'post', made.clone());
    const { id } = (await made.json()) as { id: string };
    record(
      '/api/keys',
      'post',
      await web.request('/api/keys', { method: 'POST', headers: json, body: '{}' }),
    );
    await web.request('/api/keys', { method: 'POST', headers: json, body: '{"name":"three"}' });
    record(
      '/api/keys',
      'post',
      await web.request('/api/keys', { method: 'POST', headers: json, body: '{"name":"four"}' }),
    ); // 409
    // What a key may do, changed over REST (decision 0141): 200, an unknown power 400, an unknown key 404.
    const patch = (target: string, body: string, client = web, headers = json) =>
      client.request(`/api/keys/${target}`, { method: 'PATCH', headers, body });
    const changed = await patch(id, '{"powers":["draft"]}');
    record('/api/keys/{id}', 'patch', changed.clone());
    expect(((await changed.json()) as { powers: string[] }).powers).toEqual(['draft']);
    record('/api/keys/{id}', 'patch', await patch(id, '{"powers":["send"]}'));
    record('/api/keys/{id}', 'patch', await patch('key_aaaaaaaaaaaaaaaaaaaa', '{"powers":[]}'));
    record(
      '/api/keys/{id}',
      'patch',
      await call(app, `/api/keys/${id}`, { method: 'PATCH', ...bearer(key), body: '{"powers":[]}' }),
    ); // 403
    record('/api/keys', 'get', await web.request('/api/keys'));
    record('/api/keys', 'get', await call(app, '/api/keys')); // 401
    record('/api/keys', 'get', await call(app, '/api/keys', bearer(key))); // 403
    record('/api/keys', 'post', await call(app, '/api/keys', { method: 'POST', ...bearer(key) }));
    record('/api/keys', 'post', await call(app, '/api/keys', { method: 'POST' })); // 403, the CSRF page
    // A browser that passes the CSRF check but is not signed in: 401.
    const anonymous = new WebClient(app);
    await anonymous.get('/signin');
    record(
      '/api/keys',
      'post',
      await anonymous.request('/api/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': anonymous.csrf },
        body: '{"name":"x"}',
      }),
    );
    record(
      '/api/keys/{id}',
      'patch',
      await anonymous.request(`/api/keys/${id}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', 'x-csrf-token': anonymous.csrf },
        body: '{"powers":[]}',
      }),
    ); // 401
    record('/api/keys/{id}', 'patch', await call(app, `/api/keys/${id}`, { method: 'PATCH' })); // 403, the CSRF page
    record(
      '/api/keys/{id}',
      'delete',
      await anonymous.request(`/api/keys/${id}`, {
        method: 'DELETE',
        headers: { 'x-csrf-token': anonymous.csrf },
      }),
    );
    record('/api/inboxes', 'get', await call(app, '/api/inboxes'));
    record(
      '/api/keys/{id}',
      'delete',
      await web.request(`/api/keys/${id}`, { method: 'DELETE', headers: json }),
    );
    record(
      '/api/keys/{id}',
      'delete',
      await web.request(`/api/keys/${id}`, { method: 'DELETE', headers: json }),
    );
    record('/api/keys/{id}', 'delete', await call(app, `/api/keys/${id}`, { method: 'DELETE' }));
    record(
      '/api/keys/{id}',
      'delete',
      await call(app, `/api/keys/${id}`, { method: 'DELETE', ...bearer(key) }),
    );

    // 402 after the trial ended (a trial account), 429 past the per-key budget.
    await app.services.accounts.setPlan('owner@example.test', 'pro', { payment: 'failed' });
    record(DRAFT, 'post', await post(demo, VALID));
    record('/api/inboxes', 'get', await call(app, '/api/inboxes', bearer(key)));
    await app.services.accounts.setPlan('owner@example.test', 'pro', { payment: 'ok' });
    let limited: Response | undefined;
    for (let i = 0; i < 40 && limited === undefined; i++) {
      const r = await call(app, '/api/inboxes', bearer(key));
      if (r.status === 429) limited = r;
    }
    record('/api/inboxes', 'get', limited!);
    record(DRAFT, 'post', await post(demo, VALID));
    // The activity log refusing its row: the inbox list is withheld (decision 0059).
    const failing = await createTestApp();
    const failingWeb = await setUpOwner(failing);
    const failingKey = await createKeyViaPage(failingWeb);
    failing.stores.audit.record = () => Promise.reject(new Error('disk full'));
    record('/api/inboxes', 'get', await call(failing, '/api/inboxes', bearer(failingKey)));
    await failing.close();

    const ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema(doc, 'openapi');
    const pointer = (...parts: string[]) =>
      `openapi#/${parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
    const paths = doc['paths'] as Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>
    >;
    const covered = new Set<string>();
    for (const { path, method, res } of seen) {
      const label = `${method.toUpperCase()} ${path} → ${String(res.status)}`;
      const documented = paths[path]?.[method]?.responses[String(res.status)];
      expect(documented, `${label} is not in the document`).toBeDefined();
      covered.add(`${path} ${method} ${String(res.status)}`);
      if (documented?.content === undefined) {
        expect(res.headers.get('content-length') ?? '0', label).toBe('0');
        continue;
      }
      const type = (res.headers.get('content-type') ?? '').split(';')[0]!;
      expect(Object.keys(documented.content), label).toContain(type);
      const validate = ajv.getSchema(
        pointer('paths', path, method, 'responses', String(res.status), 'content', type, 'schema'),
      );
      const body: unknown = type === 'text/html' ? await res.text() : await res.json();
      expect(validate?.(body), `${label}: ${JSON.stringify(validate?.errors)} ${JSON.stringify(body)}`).toBe(
        true,
      );
    }
    const documented = Object.entries(paths).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) =>
        Object.keys(op.responses).map((s) => `${path} ${method} ${s}`),
      ),
    );
    expect(documented.filter((d) => !covered.has(d))).toEqual([]);
  });
});
