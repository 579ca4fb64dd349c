import type { Migration } from 'kysely/migration';
import type { Dialect } from '../database.ts';
import { initial } from './0001-initial.ts';
import { people } from './0002-people.ts';
import { audit } from './0003-audit.ts';
import { oauth } from './0004-oauth.ts';
import { inboxes } from './0005-inboxes.ts';
import { triage } from './0006-triage.ts';
import { inboxOrder } from './0007-inbox-order.ts';
import { codeReplay } from './0008-code-replay.ts';
import { auditHome } from './0009-audit-home.ts';
import { unsubscribes } from './0010-unsubscribes.ts';
import { screenings } from './0011-screenings.ts';
import { requestedBy } from './0012-requested-by.ts';
import { draftCards } from './0013-draft-cards.ts';
import { listingOrder } from './0014-listing-order.ts';
import { crashRecovery } from './0015-crash-recovery.ts';
import { unfinishedWork } from './0016-unfinished-work.ts';
import { changeCounts } from './0017-change-counts.ts';
import { folderCounts } from './0018-folder-counts.ts';
import { foldedSearch } from './0019-folded-search.ts';
import { senderName } from './0020-sender-name.ts';
import { secondFactors } from './0021-second-factors.ts';
import { signInHistory } from './0022-sign-in-history.ts';
import { passkeys } from './0023-passkeys.ts';
import { credentialSetAt } from './0024-credential-set-at.ts';
import { visibleAddresses } from './0025-visible-addresses.ts';
import { inboxReach } from './0027-inbox-reach.ts';
import { agentPowers } from './0026-agent-powers.ts';
import { rateLimitsOnSqlite } from './0028-rate-limits-on-sqlite.ts';

/**
 * Ordered by name. Append only: a migration that has shipped is never edited, a change is a new entry.
 * Each is built for the dialect at hand so the few type differences stay in column-types.ts.
 */
export function migrationsFor(dialect: Dialect): Record<string, Migration> {
  return {
    '0001-initial': initial(dialect),
    '0002-people': people(dialect),
    '0003-audit': audit(dialect),
    '0004-oauth': oauth(dialect),
    '0005-inboxes': inboxes(dialect),
    '0006-triage': triage(dialect),
    '0007-inbox-order': inboxOrder(),
    '0008-code-replay': codeReplay(dialect),
    '0009-audit-home': auditHome(dialect),
    '0010-unsubscribes': unsubscribes(dialect),
    '0011-screenings': screenings(dialect),
    '0012-requested-by': requestedBy(),
    '0013-draft-cards': draftCards(dialect),
    '0014-listing-order': listingOrder(),
    '0015-crash-recovery': crashRecovery(dialect),
    '0016-unfinished-work': unfinishedWork(dialect),
    '0017-change-counts': changeCounts(dialect),
    '0018-folder-counts': folderCounts(dialect),
    '0019-folded-search': foldedSearch(),
    '0020-sender-name': senderName(),
    '0021-second-factors': secondFactors(dialect),
    '0022-sign-in-history': signInHistory(dialect),
    '0023-passkeys': passkeys(dialect),
    '0024-credential-set-at': credentialSetAt(dialect),
    '0025-visible-addresses': visibleAddresses(),
    '0026-agent-powers': agentPowers(),
    '0027-inbox-reach': inboxReach(),
    '0028-rate-limits-on-sqlite': rateLimitsOnSqlite(dialect),
  };
}
