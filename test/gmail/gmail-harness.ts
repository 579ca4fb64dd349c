import { gmail, type gmail_v1 } from '@googleapis/gmail';
import { GmailApi } from '../../src/adapters/mail/gmail/gmail-api.ts';
import { ARCHIVE, listSelector, moveLabels } from '../../src/adapters/mail/gmail/gmail-folders.ts';
import { GmailSession } from '../../src/adapters/mail/gmail/gmail-session.ts';
import { ConnectionSemaphore } from '../../src/adapters/mail/imap/host-semaphore.ts';
import type { MailHarness } from '../../src/core/mail/mail-session.contract.ts';
import { startGoogleEmulator, type GoogleEmulator } from '../rig/gmail-emulator.ts';

/** Gmail as "another mail client" sees it: the API straight to the emulator, with IMAP-named flags mapped. */
export async function gmailHarness(opts: { pollMs?: number } = {}): Promise<
  MailHarness & {
    google: GoogleEmulator;
    api: gmail_v1.Gmail;
    idOf(messageIdHeader: string): Promise<string>;
  }
> {
  const google = await startGoogleEmulator();
  const api = gmail({ version: 'v1', rootUrl: `${google.url}/` });
  const o = { headers: { authorization: 'Bearer test-token' } };
  const labelId = async (name: string): Promise<string> => {
    const labels = (await api.users.labels.list({ userId: 'me' }, o)).data.labels ?? [];
    const found = labels.find((l) => l.name === name || l.id === name);
    if (found?.id != null) return found.id;
    const made = await api.users.labels.create({ userId: 'me', requestBody: { name } }, o);
    return made.data.id ?? '';
  };
  const labelsFor = async (flags: readonly string[]): Promise<string[]> => {
    const ids = [
      ...(flags.includes('\\Seen') ? [] : ['UNREAD']),
      ...(flags.includes('\\Flagged') ? ['STARRED'] : []),
    ];
    for (const f of flags) if (!f.startsWith('\\')) ids.push(await labelId(f));
    return ids;
  };
  const idOf = async (messageIdHeader: string): Promise<string> => {
    const found = await api.users.messages.list(
      { userId: 'me', q: `rfc822msgid:${messageIdHeader.slice(1, -1)}`, includeSpamTrash: true },
      o,
    );
    const id = found.data.messages?.[0]?.id;
    if (id == null) throw new Error(`no message ${messageIdHeader}`);
    return id;
  };
  const limiter = new ConnectionSemaphore(4);
  return {
    google,
    api,
    idOf,
    inboxPath: 'INBOX',
    archivePath: ARCHIVE,
    // The emulated user's name: Gmail's primary send-as address carries it.
    ownName: 'Pat Person',
    labelsListed: true,
    session: () =>
      Promise.resolve(
        new GmailSession({
          api: new GmailApi({
            rootUrl: google.url,
            token: () => Promise.resolve('test-token'),
            limiter,
            limiterKey: 'contract',
          }),
          pollMs: opts.pollMs ?? 200,
        }),
      ),
    async append(path, raw, opts = {}) {
      await api.users.messages.insert(
        {
          userId: 'me',
          internalDateSource: 'dateHeader',
          requestBody: {
            raw: raw.toString('base64url'),
            labelIds: [...moveLabels(ARCHIVE, path).add, ...(await labelsFor(opts.flags ?? []))],
          },
        },
        o,
      );
    },
    async setFlags(path, messageIdHeader, flags) {
      const id = await idOf(messageIdHeader);
      const current =
        (await api.users.messages.get({ userId: 'me', id, format: 'minimal' }, o)).data.labelIds ?? [];
      const wanted = await labelsFor(flags);
      const keep = (l: string) => l === path || ['INBOX', 'SENT', 'DRAFT', 'SPAM', 'TRASH'].includes(l);
      await api.users.messages.modify(
        {
          userId: 'me',
          id,
          requestBody: {
            addLabelIds: wanted.filter((l) => !current.includes(l)),
            removeLabelIds: current.filter((l) => !keep(l) && !wanted.includes(l)),
          },
        },
        o,
      );
    },
    async expunge(_path, messageIdHeader) {
      await api.users.messages.delete({ userId: 'me', id: await idOf(messageIdHeader) }, o);
    },
    async moveElsewhere(path, messageIdHeader, toPath) {
      const { add, remove } = moveLabels(path, toPath);
      await api.users.messages.modify(
        {
          userId: 'me',
          id: await idOf(messageIdHeader),
          requestBody: { addLabelIds: add, removeLabelIds: remove },
        },
        o,
      );
    },
    /** Gmail's equivalent of a new UIDVALIDITY: the folder emptied and its history expired. */
    async resetUidValidity(path) {
      const inside = await api.users.messages.list(
        { userId: 'me', maxResults: 500, ...listSelector(path) },
        o,
      );
      for (const m of inside.data.messages ?? [])
        await api.users.messages.delete({ userId: 'me', id: m.id ?? '' }, o);
      const profile = await fetch(`${google.url}/gmail/v1/users/me/profile`, o);
      const { historyId } = (await profile.json()) as { historyId: string };
      google.expireHistoryBefore(historyId);
    },
    async expireChangeLog() {
      const profile = await fetch(`${google.url}/gmail/v1/users/me/profile`, o);
      const { historyId } = (await profile.json()) as { historyId: string };
      google.expireHistoryBefore(historyId);
    },
    providerRequests: () => google.requests.length,
    close: () => google.close(),
  };
}
