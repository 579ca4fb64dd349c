import { afterAll, beforeAll, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { freshPgDatabase } from '../rig/index.ts';
import { createTestApp } from '../support/test-app.ts';
import { agentOn, expectToolOk, toolCaller } from '../support/tool-caller.ts';

// Two nodes on one PostgreSQL, the demo inbox, and the same call sent to both at the same moment: what one agent
// retrying on a second node, or two agents, do. Each case failed before its fix.
let a: App;
let b: App;
let onA: ReturnType<typeof toolCaller>;
let onB: ReturnType<typeof toolCaller>;
let inboxId: string;

beforeAll(async () => {
  const url = await freshPgDatabase();
  a = await createTestApp({ pgUrl: url });
  b = await createTestApp({ pgUrl: url });
  const { key } = await agentOn(a);
  onA = toolCaller(a, key);
  onB = toolCaller(b, key);
  inboxId = ((await onA('list_inboxes')).body['inboxes'] as { id: string }[])[0]!.id;
}, 60_000);

afterAll(async () => {
  await a.close();
  await b.close();
});

it('syncs the same inbox on both nodes at once, every call answered', async () => {
  // Each sync records the folders it listed, and selects folders: the inbox folder on a first sync, or those a call
  // names. Those writes locked the same folder rows in different orders, and PostgreSQL cut one off: calls answered
  // provider_error "deadlock detected".
  const choices = [undefined, ['inbox'], ['inbox', 'sent'], ['sent', 'archive', 'inbox'], ['archive']];
  for (let round = 0; round < 6; round++) {
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => {
        const folders = choices[(i + round) % choices.length];
        return (i % 2 === 0 ? onA : onB)('sync_inbox', { inboxId, ...(folders && { folders }) });
      }),
    );
    for (const r of results) expectToolOk(r);
  }
}, 60_000);

it('a rescue and a report of one screened message at once: one of them moves it, the other finds it gone from Screened', async () => {
  const batch = expectToolOk(await onA('screen_junk', {}));
  const [offered] = batch['messages'] as { inboxId: string; messageId: string }[];
  expectToolOk(
    await onA('confirm_screening', {
      verdicts: [{ inboxId: offered!.inboxId, messageId: offered!.messageId, verdict: 'junk' }],
    }),
  );
  const [row] = expectToolOk(await onA('review_screened', {}))['rows'] as { id: string }[];
  // Both checked that the message sat in Screened before either moved it, so both succeeded: it went to the inbox
  // and on to Spam, and its sender ended up known-good and blocked at once.
  const [rescued, reported] = await Promise.all([
    onA('rescue_screened', { inboxId, id: row!.id }),
    onB('report_screened', { inboxId, id: row!.id }),
  ]);
  expect([rescued.isError, reported.isError].sort()).toEqual([false, true]);
  expect((rescued.isError ? rescued : reported).body['error']).toBe('screened_not_found');
  const junk = (
    expectToolOk(await onA('get_triage_profile', {}))['triageProfile'] as {
      defaults: { junk: { knownGoodSenders: string[]; blockedSenders: string[]; blockedDomains: string[] } };
    }
  ).defaults.junk;
  const sender = (rescued.isError ? reported : rescued).body['sender'] as string;
  const blocked = junk.blockedSenders.includes(sender) || junk.blockedDomains.includes(sender.split('@')[1]!);
  expect(junk.knownGoodSenders.includes(sender)).toBe(!blocked);
}, 60_000);
