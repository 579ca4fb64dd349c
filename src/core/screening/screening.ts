import type { AccountId } from '../accounts/account.ts';
import type { Address } from '../messages/message.ts';

/** What an agent may say of a message it screened (the rubric defines each; the transport words it). */
export const VERDICTS = ['junk', 'unsure', 'fine'] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * Who gave a message its verdict: an agent, the sync applying the person's blocklist (junk), or the rule that a VIP's
 * or known-good sender's mail is fine when its From was not found forged (decision 0101).
 */
export type ScreeningSource = 'agent' | 'blocklist' | 'exempt';
/** Who put a message in Screened (junk comes from an agent or the blocklist, never from the exemption). */
export type JunkSource = Exclude<ScreeningSource, 'exempt'>;

/** What the person did with a screened message. */
export type Resolution = 'rescued' | 'reported';

/** Messages one hand-out gives, and verdicts one confirmation takes (contract §8: up to 50 per screening batch). */
export const SCREEN_BATCH = 50;
/** A handed-out message can be judged for this long; later verdicts are refused as not offered. */
export const OFFER_TTL_MS = 60 * 60_000;
/** The keyword (IMAP) or label an unsure verdict puts on the message, so the person sees it in any mail client. */
export const UNSURE_LABEL = 'Screening-Unsure';
export const REASON_MAX = 500;

/** One message's screening: handed out, judged, and what the person did after. */
export interface Screening {
  /** `scr_…`: the screened row id of the contract. */
  readonly id: string;
  readonly accountId: AccountId;
  readonly inboxId: string;
  readonly messageId: string;
  readonly senderAddress: string;
  readonly offeredAt: Date | null;
  readonly offerExpiresAt: Date | null;
  readonly verdict: Verdict | null;
  readonly reason: string | null;
  readonly source: ScreeningSource;
  readonly decidedAt: Date | null;
  readonly resolution: Resolution | null;
  readonly resolvedAt: Date | null;
  /** The undo handle of the change that screened it. */
  readonly undoId: string | null;
}

/** A screened message still in Screened, as the person reviews it. */
export interface ScreenedRow {
  readonly id: string;
  readonly inboxId: string;
  readonly messageId: string;
  readonly from: Address;
  readonly subject: string;
  readonly date: Date;
  readonly reason: string | null;
  readonly source: JunkSource;
  readonly screenedAt: Date;
  readonly undoId: string | null;
}

/** Counts over a review window, for the digest. */
export interface ScreenedDigest {
  /** Messages screened in the window that are still in Screened. */
  readonly waiting: number;
  /** Distinct senders among them, and the three with the most messages. */
  readonly senders: number;
  readonly topSenders: readonly { readonly address: string; readonly messages: number }[];
  readonly fromBlocklist: number;
  readonly rescued: number;
  readonly reported: number;
}
