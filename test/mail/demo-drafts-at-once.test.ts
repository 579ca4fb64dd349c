import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { freshPgDatabase } from '../rig/index.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolOk, type toolCaller } from '../support/tool-caller.ts';

// The demo mailbox on PostgreSQL, as a deployment of several nodes runs it: drafts saved at once each get a UID of
// their own in Drafts. Two of five failed with internal_error when an append read the folder's next UID first.
let app: App;
let call: ReturnType<typeof toolCaller>;
let inboxId: string;

beforeAll(async () => {
  app = await createTestApp({ pgUrl: await freshPgDatabase() });
  ({ call } = await agentOn(app));
  inboxId = ((await call('list_inboxes')).body['inboxes'] as { id: string }[])[0]!.id;
}, 60_000);

afterAll(() => app.close());

it('saves five drafts written at once on the demo inbox, each as its own message in Drafts', async () => {
  const subjects = Array.from({ length: 5 }, (_, i) => `At once ${String(i)}`);
  const drafts = await Promise.all(
    subjects.map(async (subject) =>
      expectToolOk(await call('create_draft', { inboxId, to: 'someone@example.test', subject, text: 'Hi' })),
    ),
  );
  const refs = drafts.map((d) => (d['draft'] as { providerDraftId: string }).providerDraftId);
  expect(new Set(refs).size).toBe(5);
}, 60_000);
