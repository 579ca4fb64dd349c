import { screeningStoreContract } from '../../core/screening/screening-store.contract.ts';
import { changeCounterContract } from '../../core/sync/change-counter.contract.ts';
import { afterAll, beforeAll, describe } from 'vitest';
import { accountStoreContract } from '../../core/accounts/account-store.contract.ts';
import { inboxStoreContract } from '../../core/inboxes/inbox-store.contract.ts';
import { folderStoreContract } from '../../core/messages/folder-store.contract.ts';
import { messageStoreContract } from '../../core/messages/message-store.contract.ts';
import { settingsStoreContract } from '../../core/settings/settings-store.contract.ts';
import { apiKeyStoreContract } from '../../core/api-keys/api-key-store.contract.ts';
import { sessionStoreContract } from '../../core/sessions/session-store.contract.ts';
import { auditLogContract } from '../../core/audit/audit-log.contract.ts';
import { grantStoreContract } from '../../oauth/token/grant-store.contract.ts';
import { leaseStoreContract } from '../../core/leases/lease-store.contract.ts';
import { undoStoreContract } from '../../core/actions/undo-store.contract.ts';
import { vipStoreContract } from '../../core/vips/vip-store.contract.ts';
import {
  cardCodeStoreContract,
  draftStoreContract,
  pendingSendStoreContract,
} from '../../core/drafts/draft-store.contract.ts';
import { invitationStoreContract } from '../../core/accounts/invitation-store.contract.ts';
import {
  mailingListIndexContract,
  pendingUnsubscribeStoreContract,
} from '../../core/unsubscribe/unsubscribe-stores.contract.ts';
import { freshPgDatabase } from '../../../test/rig/pg.ts';
import { tempDir } from '../../../test/support/temp-dir.ts';
import { clientStoreContract } from '../../oauth/client/client-store.contract.ts';
import { requestStoreContract } from '../../oauth/request/request-store.contract.ts';
import { secretLinkStoreContract } from '../../core/inboxes/secret-link-store.contract.ts';
import { credentialVaultContract } from '../../core/inboxes/credential-vault.contract.ts';
import type { InboxId } from '../../core/inboxes/inbox.ts';
import { aead } from '../../lib/aead.ts';
import { KyselyAuditLog } from './kysely-audit-log.ts';
import { KyselyCredentialVault } from './kysely-credential-vault.ts';
import { KyselySecretLinkStore } from './kysely-secret-link-store.ts';
import { KyselySecondFactorStore } from './kysely-second-factor-store.ts';
import { secondFactorStoreContract } from '../../core/sessions/second-factor-store.contract.ts';
import { signInHistoryContract } from '../../core/sessions/sign-in-history.contract.ts';
import { KyselySignInHistory } from './kysely-sign-in-history.ts';
import { passkeyStoreContract } from '../../core/sessions/passkey-store.contract.ts';
import { KyselyPasskeyStore } from './kysely-passkey-store.ts';
import { createStores, migrateToLatest, openDatabase, type Db, type DbTarget, type Stores } from './index.ts';

// Every store contract, run unchanged against a SQLite file and a real PostgreSQL server.
const targets: { name: string; target: () => Promise<DbTarget> }[] = [
  {
    name: 'sqlite',
    target: () => Promise.resolve({ kind: 'sqlite', path: `${tempDir('stores-')}/test.db` }),
  },
  { name: 'postgres', target: async () => ({ kind: 'postgres', url: await freshPgDatabase() }) },
];

for (const { name, target } of targets) {
  describe(`stores on ${name}`, () => {
    let db: Db;
    let stores: Stores;
    beforeAll(async () => {
      db = openDatabase(await target());
      await migrateToLatest(db);
      stores = createStores(db);
    });
    afterAll(async () => {
      await db.close();
    });
    accountStoreContract(() => stores.accounts);
    settingsStoreContract(() => stores);
    inboxStoreContract(() => stores);
    folderStoreContract(() => stores);
    messageStoreContract(() => stores);
    apiKeyStoreContract(() => stores);
    sessionStoreContract(() => stores);
    invitationStoreContract(() => stores.invitations);
    auditLogContract(() => stores);
    grantStoreContract(() => stores);
    leaseStoreContract(() => stores);
    undoStoreContract(() => stores);
    vipStoreContract(() => stores);
    draftStoreContract(() => stores);
    pendingSendStoreContract(() => stores);
    cardCodeStoreContract(() => stores);
    pendingUnsubscribeStoreContract(() => stores);
    mailingListIndexContract(() => stores);
    screeningStoreContract(() => stores);
    changeCounterContract(() => stores);
    auditLogContract(() => ({ accounts: stores.accounts, audit: new KyselyAuditLog(db) }));
    clientStoreContract(() => ({
      accounts: stores.accounts,
      clients: stores.oauthClients,
      requests: stores.oauthRequests,
      grants: stores.grants,
    }));
    requestStoreContract(() => ({ clients: stores.oauthClients, requests: stores.oauthRequests }));
    secretLinkStoreContract(() => ({ ...stores, links: new KyselySecretLinkStore(db) }));
    secondFactorStoreContract(() => ({
      accounts: stores.accounts,
      factors: new KyselySecondFactorStore(db, aead(Buffer.alloc(32, 7), 'credential')),
      stored: async (accountId: string) =>
        (
          await db.kysely
            .selectFrom('second_factors')
            .select('sealed')
            .where('account_id', '=', accountId)
            .executeTakeFirst()
        )?.sealed,
    }));
    signInHistoryContract(() => ({ accounts: stores.accounts, history: new KyselySignInHistory(db) }));
    passkeyStoreContract(() => ({ accounts: stores.accounts, passkeys: new KyselyPasskeyStore(db) }));
    credentialVaultContract(() => ({
      ...stores,
      vault: new KyselyCredentialVault(db, aead(Buffer.alloc(32, 7), 'credential')),
      stored: async (inboxId: InboxId) =>
        (
          await db.kysely
            .selectFrom('inbox_credentials')
            .select('sealed')
            .where('inbox_id', '=', inboxId)
            .executeTakeFirst()
        )?.sealed,
      copyStored: async (from: InboxId, to: InboxId) => {
        const r = await db.kysely
          .selectFrom('inbox_credentials')
          .select('sealed')
          .where('inbox_id', '=', from)
          .executeTakeFirstOrThrow();
        await db.kysely
          .updateTable('inbox_credentials')
          .set({ sealed: r.sealed })
          .where('inbox_id', '=', to)
          .execute();
      },
    }));
  });
}
