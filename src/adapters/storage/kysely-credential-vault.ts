import type { CredentialVault } from '../../core/inboxes/credential-vault.ts';
import type { InboxId } from '../../core/inboxes/inbox.ts';
import type { MailCredential } from '../../core/mail/mail-types.ts';
import type { Aead } from '../../lib/aead.ts';
import type { Db } from './database.ts';

/**
 * Credentials sealed with AES-256-GCM (a `credential` subkey of the service key), the inbox id as associated
 * data: a sealed value copied onto another inbox's row does not open.
 */
export class KyselyCredentialVault implements CredentialVault {
  private readonly db: Db['kysely'];
  private readonly aead: Aead;
  constructor(db: Db, aead: Aead) {
    this.db = db.kysely;
    this.aead = aead;
  }

  async put(inboxId: InboxId, credential: MailCredential, now: Date): Promise<void> {
    const sealed = this.aead.seal(JSON.stringify(credential), inboxId);
    await this.db
      .insertInto('inbox_credentials')
      .values({ inbox_id: inboxId, sealed, updated_at: now.getTime() })
      .onConflict((oc) => oc.column('inbox_id').doUpdateSet({ sealed, updated_at: now.getTime() }))
      .execute();
  }

  async get(inboxId: InboxId): Promise<MailCredential | undefined> {
    const r = await this.db
      .selectFrom('inbox_credentials')
      .select('sealed')
      .where('inbox_id', '=', inboxId)
      .executeTakeFirst();
    if (r === undefined) return undefined;
    const opened = this.aead.open(r.sealed, inboxId);
    // Unopenable (a lost or rotated key): treated as no credential, so the person is asked to reconnect.
    return opened === undefined ? undefined : (JSON.parse(opened) as MailCredential);
  }

  async delete(inboxId: InboxId): Promise<void> {
    await this.db.deleteFrom('inbox_credentials').where('inbox_id', '=', inboxId).execute();
  }
}
