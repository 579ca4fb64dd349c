import { EVERY_POWER, type Powers } from './agent-powers.ts';
import { EVERY_INBOX, type InboxReach } from './inbox-reach.ts';

/**
 * What the person allows one agent: what it may do beyond reading (decision 0141) and where (decision 0142).
 * Chosen together on a key's page, the consent page and Connected agents, and stored with the credential.
 */
export interface Allowed {
  readonly powers: Powers;
  readonly inboxes: InboxReach;
}

/** What a credential made without a choice holds: every power, every inbox, those added later too. */
export const EVERYTHING: Allowed = { powers: EVERY_POWER, inboxes: EVERY_INBOX };
