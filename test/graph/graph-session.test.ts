import { afterAll, describe, expect, it } from 'vitest';
import { GraphApi } from '../../src/adapters/mail/graph/graph-api.ts';
import { GraphSession } from '../../src/adapters/mail/graph/graph-session.ts';
import { ConnectionSemaphore } from '../../src/adapters/mail/imap/host-semaphore.ts';
import { mailSessionContract } from '../../src/core/mail/mail-session.contract.ts';
import { mailWriterContract } from '../../src/core/mail/mail-writer.contract.ts';
import { startGraphStub, type GraphStub } from '../rig/graph-stub.ts';
import { graphHarness } from './graph-harness.ts';

/** The same contract Dovecot, the demo and Gmail pass, on the Graph adapter against our documented-behaviour stub. */
describe('Microsoft Graph (stub)', () => {
  mailSessionContract('Graph', () => graphHarness(), { reset: true, changeLog: true });
  mailWriterContract('Graph', () => graphHarness());
});

// Decision 0127: the well-known folders' ids are kept across sessions (the connector's record per inbox).
describe('the well-known folders a Graph session remembers', () => {
  const stubs: GraphStub[] = [];
  afterAll(async () => {
    for (const s of stubs) await s.close();
  });
  const sessionOn = (graph: GraphStub, wellKnown: Map<string, string>) =>
    new GraphSession({
      api: new GraphApi({
        rootUrl: graph.url,
        token: () => Promise.resolve('test-token'),
        limiter: new ConnectionSemaphore(4),
        limiterKey: 'well-known',
      }),
      pollMs: 60_000,
      wellKnown,
    });
  const lookups = (graph: GraphStub) =>
    graph.requests.filter((r) => /\/mailFolders\/[a-z]+\?/.test(r.path)).length;
  const roles = async (s: GraphSession) =>
    Object.fromEntries(
      (await s.listFolders()).flatMap((f) => (f.canonical === null ? [] : [[f.canonical, f.path] as const])),
    );

  it('are looked up by the first session only, and found the same by the next', async () => {
    const graph = await startGraphStub();
    stubs.push(graph);
    const known = new Map<string, string>();
    const first = await roles(sessionOn(graph, known));
    expect(first['inbox']).toBe(graph.folderId('inbox'));
    expect(first['trash']).toBe(graph.folderId('deleteditems'));
    const asked = lookups(graph);
    expect(asked).toBe(6);
    expect(await roles(sessionOn(graph, known))).toEqual(first);
    expect(lookups(graph)).toBe(asked);
  });

  it('remembered from another mailbox (another account signed in to the inbox), are looked up again at once', async () => {
    const graph = await startGraphStub();
    stubs.push(graph);
    const known = new Map([
      ['inbox', 'AAMk-another-mailbox-inbox'],
      ['deleteditems', 'AAMk-another-mailbox-trash'],
    ]);
    const found = await roles(sessionOn(graph, known));
    expect(found['inbox']).toBe(graph.folderId('inbox'));
    expect(found['trash']).toBe(graph.folderId('deleteditems'));
    expect(known.get('inbox')).toBe(graph.folderId('inbox'));
  });
});
