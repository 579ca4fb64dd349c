import { GraphApi } from '../../src/adapters/mail/graph/graph-api.ts';
import { GraphSession } from '../../src/adapters/mail/graph/graph-session.ts';
import { ConnectionSemaphore } from '../../src/adapters/mail/imap/host-semaphore.ts';
import type { MailHarness } from '../../src/core/mail/mail-session.contract.ts';
import { startGraphStub, type GraphStub } from '../rig/graph-stub.ts';

/** Microsoft Graph as "another mail client" sees it: the stub's own API, with IMAP-named flags mapped. */
export async function graphHarness(
  opts: { pollMs?: number } = {},
): Promise<MailHarness & { graph: GraphStub }> {
  const graph = await startGraphStub();
  const H = {
    authorization: 'Bearer another-client',
    prefer: 'IdType="ImmutableId"',
    'content-type': 'application/json',
  };
  const req = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${graph.url}/v1.0/me${path}`, {
      method,
      headers: H,
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${String(res.status)}`);
  };
  const idOf = (messageIdHeader: string) => {
    const m = graph.find(messageIdHeader);
    if (m === undefined) throw new Error(`no message ${messageIdHeader}`);
    return m.id;
  };
  const limiter = new ConnectionSemaphore(4);
  // Kept across sessions, as the connector keeps it per inbox.
  const wellKnown = new Map<string, string>();
  return {
    graph,
    inboxPath: graph.folderId('inbox')!,
    archivePath: graph.folderId('archive')!,
    session: () =>
      Promise.resolve(
        new GraphSession({
          api: new GraphApi({
            rootUrl: graph.url,
            token: () => Promise.resolve('test-token'),
            limiter,
            limiterKey: 'contract',
          }),
          pollMs: opts.pollMs ?? 200,
          wellKnown,
        }),
      ),
    async append(path, raw, o = {}) {
      const flags = o.flags ?? [];
      await graph.deliver(raw, {
        folder: path,
        isRead: flags.includes('\\Seen'),
        flagged: flags.includes('\\Flagged'),
        categories: flags.filter((f) => !f.startsWith('\\')),
        ...(o.date !== undefined && { received: o.date }),
      });
    },
    async setFlags(_path, messageIdHeader, flags) {
      await req('PATCH', `/messages/${idOf(messageIdHeader)}`, {
        isRead: flags.includes('\\Seen'),
        flag: { flagStatus: flags.includes('\\Flagged') ? 'flagged' : 'notFlagged' },
        categories: flags.filter((f) => !f.startsWith('\\')),
      });
    },
    async expunge(_path, messageIdHeader) {
      await req('POST', `/messages/${idOf(messageIdHeader)}/permanentDelete`);
    },
    async moveElsewhere(_path, messageIdHeader, toPath) {
      await req('POST', `/messages/${idOf(messageIdHeader)}/move`, { destinationId: toPath });
    },
    /** Graph's equivalent of a new UIDVALIDITY: the folder emptied and every delta token expired. */
    async resetUidValidity(path) {
      for (const m of graph.messagesIn(path)) await req('POST', `/messages/${m.id}/permanentDelete`);
      graph.expireDeltaTokens();
    },
    expireChangeLog() {
      graph.expireDeltaTokens();
      return Promise.resolve();
    },
    providerRequests: () => graph.requests.length,
    close: () => graph.close(),
  };
}
