import type { Clock } from '../../lib/clock.ts';
import { htmlToText } from '../../lib/html-to-text.ts';
import type { Logger } from '../../lib/logger.ts';
import { err, ok, type Err, type Result } from '../../lib/result.ts';
import type { AccountId } from '../accounts/account.ts';
import type { ActionService, Actor, ActStep } from '../actions/action-service.ts';
import type { ActError } from '../actions/action-types.ts';
import type { Principal } from '../auth/principal.ts';
import { wholeAccount, type Reach } from '../auth/inbox-reach.ts';
import type { InboxErrorCode } from '../inboxes/inbox-errors.ts';
import type { InboxService } from '../inboxes/inbox-service.ts';
import type { Inbox } from '../inboxes/inbox.ts';
import { MailAuthError, MailProviderError, type MailSession } from '../mail/mail-ports.ts';
import type { FullMessage } from '../mail/mail-types.ts';
import { foldersWithRole } from '../mail/folder-with-role.ts';
import type { MailSessionFactory } from '../mail/mail-session-factory.ts';
import type { Folder, FolderId } from '../messages/folder.ts';
import type { FolderStore } from '../messages/folder-store.ts';
import { addressKey, otherAddressShown } from '../messages/address-key.ts';
import { borrowsWords, nameWords } from '../messages/borrowed-name.ts';
import { parseMessageId, type Address, type MessageSummary } from '../messages/message.ts';
import type { MessageStore } from '../messages/message-store.ts';
import { fenceUntrusted, type FencedBody } from '../messages/untrusted-content.ts';
import type { ProfileService } from '../profile/profile-service.ts';
import {
  changeInboxScreeningList,
  changeScreeningList,
  SCREENING_LIST_MAX,
  type ScreeningList,
  type TriagePrefs,
  type TriageProfile,
} from '../profile/triage-profile.ts';
import type { ArrivalScreen } from '../sync/sync-service.ts';
import { vipMatcher, type VipService } from '../vips/vip-service.ts';
import { NO_SIGNALS, parseAuthResults, type AuthSignals } from '../mail/auth-results.ts';
import {
  OFFER_TTL_MS,
  SCREEN_BATCH,
  UNSURE_LABEL,
  type ScreenedDigest,
  type ScreenedRow,
  type Screening,
  type Verdict,
} from './screening.ts';
import type { ScreeningStore } from './screening-store.ts';
import { blockingEntry, blockTarget, isBlocked, isKnownGood, type BlockTarget } from './sender-rules.ts';

/** The folder junk goes to when a mailbox has none with the screened role. */
export const SCREENED_FOLDER_NAME = 'Screened';
/** Characters of each message's text handed out for judging. */
const EXCERPT_CHARS = 600;
/** Unscreened messages read per round while looking for ones to hand out. */
const CANDIDATE_PAGE = 200;
const CANDIDATE_ROUNDS = 10;
/** Messages from exempt senders read per call to see whether their From was forged (decision 0101). */
const CLAIMS_CHECKED = 20;

/** A message picked for a batch, with what was read of it while picking. */
interface Found {
  readonly inbox: Inbox;
  readonly folder: Folder;
  readonly message: MessageSummary;
  readonly impersonates: Exemption | null;
  readonly full?: FullMessage;
}

export interface ScreeningServiceDeps {
  readonly store: ScreeningStore;
  readonly messages: MessageStore;
  readonly folders: FolderStore;
  readonly sessions: MailSessionFactory;
  readonly inboxes: InboxService;
  readonly vips: VipService;
  readonly profiles: ProfileService;
  readonly actions: ActionService;
  readonly clock: Clock;
  readonly log: Logger;
}

/** One message handed out for a verdict, with what helps judge it. */
export interface Candidate {
  readonly message: MessageSummary;
  readonly signals: AuthSignals;
  /** No other message from this address is indexed in the inbox. */
  readonly firstTimeSender: boolean;
  /** The start of the text, fenced; null when the provider could not give it now. */
  readonly body: FencedBody | null;
  /** Reply-To addresses (a reply going elsewhere than the sender is a phishing sign). */
  readonly replyTo: readonly Address[];
  /**
   * The From names one of the person's VIPs or known-good senders, whose mail is never handed out, but the person's
   * own provider found it forged (DMARC failed): handed out as a stranger's mail wearing that name (decision 0101).
   */
  readonly impersonates: Exemption | null;
  /**
   * The From's display name is one a VIP or known-good sender uses on mail the index holds, from another address:
   * how an executive, a bank or a shop is impersonated from an address of the impostor's own (decision 0107).
   */
  readonly usesNameOf: Exemption | null;
  /** The display name is written as an address other than the sender's: `"boss@corp.test" <x@elsewhere.test>`. */
  readonly nameShowsOtherAddress: boolean;
}

/** Why a sender's mail is never handed out: a VIP, or a sender the person marked good. */
export type Exemption = 'vip' | 'known_good';

export type SkippedInboxReason = 'screening_off' | 'not_synced' | InboxErrorCode;

export interface ScreenBatch {
  readonly candidates: readonly Candidate[];
  readonly offerExpiresAt: Date;
  readonly skippedInboxes: readonly { readonly inboxId: string; readonly reason: SkippedInboxReason }[];
  /** More unscreened messages wait after this batch. */
  readonly more: boolean;
}

export interface VerdictInput {
  readonly inboxId: string;
  readonly messageId: string;
  readonly verdict: Verdict;
  readonly reason?: string | undefined;
}

export type VerdictSkip = 'not_offered' | 'duplicate' | 'vip' | 'known_good' | 'not_found';

export interface ConfirmOutcome {
  readonly applied: readonly {
    readonly inboxId: string;
    readonly messageId: string;
    readonly verdict: Verdict;
    readonly id: string;
  }[];
  readonly skipped: readonly {
    readonly inboxId: string;
    readonly messageId: string;
    readonly reason: VerdictSkip;
  }[];
  readonly undoId: string | null;
  readonly withoutLease: boolean;
}

export type ScreeningError = ActError | { readonly code: 'screened_not_found'; readonly message: string };

export interface Review {
  readonly rows: readonly ScreenedRow[];
  readonly total: number;
  readonly nextOffset: number | null;
  readonly digest: ScreenedDigest;
  readonly since: Date;
}

/**
 * Where a rescue or a report changed the screening lists: every inbox's (the defaults and every override with its own
 * copy), or only the message's inbox's, for an agent limited to some inboxes (decision 0143).
 */
export type ListScope = 'every_inbox' | 'this_inbox';

export interface Resolved {
  readonly undoId: string | null;
  readonly sender: string;
  readonly scope: ListScope;
}

/**
 * Junk screening (contract §4.9, DESIGN.md §4): agents judge messages handed out here, junk moves to the Screened
 * folder through the ActionService (lease, VIP and undo rules as for every change), and the person's rescues and
 * reports teach the profile's known-good list and blocklist, which the sync then applies to arriving mail.
 * VIP and known-good senders are never handed out, never judged and never screened by the blocklist.
 */
export class ScreeningService implements ArrivalScreen {
  private readonly deps: ScreeningServiceDeps;
  constructor(deps: ScreeningServiceDeps) {
    this.deps = deps;
  }

  /** Up to 50 unscreened messages of these inboxes, newest first, handed out for an hour. */
  async screen(who: Reach, inboxes: readonly Inbox[]): Promise<ScreenBatch> {
    const { accountId } = who;
    const now = this.deps.clock.now();
    const skippedInboxes: { inboxId: string; reason: SkippedInboxReason }[] = [];
    const found: Found[] = [];
    const rules = new Map<string, (address: string) => Exemption | undefined>();
    // Every inbox's VIPs and known-good senders: whose names a stranger may borrow (decision 0118).
    const trusted = { addresses: new Set<string>(), domains: new Set<string>() };
    let more = false;
    for (const named of inboxes) {
      const usable = await this.deps.inboxes.usableWithFolders(who, named.id);
      if (!usable.ok) {
        skippedInboxes.push({ inboxId: named.id, reason: usable.error.code });
        continue;
      }
      const { inbox, folders } = usable.value;
      const prefs = await this.deps.profiles.effective(accountId, inbox.id);
      if (!prefs.junk.screenUnknownSenders) {
        skippedInboxes.push({ inboxId: inbox.id, reason: 'screening_off' });
        continue;
      }
      const folder = folders.find((f) => f.canonical === 'inbox');
      if (folder === undefined) {
        skippedInboxes.push({ inboxId: inbox.id, reason: 'not_synced' });
        continue;
      }
      const vips = await this.deps.vips.entries(accountId, inbox.id);
      const exempt = exemption(vips, prefs);
      rules.set(inbox.id, exempt);
      for (const a of [...vips.emails, ...prefs.junk.knownGoodSenders]) trusted.addresses.add(a);
      for (const d of vips.domains) trusted.domains.add(d);
      const picked = await this.pick(inbox, folder, exempt);
      const forged = await this.claimsChecked(inbox, folder, picked.claimants);
      more ||= picked.more || forged.unchecked;
      for (const message of picked.messages) found.push({ inbox, folder, message, impersonates: null });
      for (const f of forged.messages) found.push({ inbox, folder, ...f });
    }
    found.sort((a, b) => b.message.date.getTime() - a.message.date.getTime());
    if (found.length > SCREEN_BATCH) more = true;
    const batch = found.slice(0, SCREEN_BATCH);
    const expiresAt = new Date(now.getTime() + OFFER_TTL_MS);
    await this.deps.store.offer(
      batch.map(({ inbox, message }) => ({
        accountId,
        inboxId: inbox.id,
        messageId: message.id,
        senderAddress: message.from.address,
      })),
      now,
      expiresAt,
    );
    const trustedName = await this.trustedNames(accountId, batch, rules, {
      addresses: [...trusted.addresses],
      domains: [...trusted.domains],
    });
    const candidates: Candidate[] = [];
    for (const inbox of new Map(batch.map((b) => [b.inbox.id, b.inbox])).values()) {
      const mine = batch.filter((b) => b.inbox.id === inbox.id);
      const details = await this.details(inbox, mine, trustedName);
      candidates.push(...details);
    }
    candidates.sort((a, b) => b.message.date.getTime() - a.message.date.getTime());
    return { candidates, offerExpiresAt: expiresAt, skippedInboxes, more };
  }

  /** Applies verdicts on handed-out messages: junk to Screened, unsure marked, fine remembered. */
  async confirm(
    principal: Principal,
    verdicts: readonly VerdictInput[],
  ): Promise<Result<ConfirmOutcome, ScreeningError>> {
    const { accountId } = principal;
    const now = this.deps.clock.now();
    const skipped: { inboxId: string; messageId: string; reason: VerdictSkip }[] = [];
    const claimed: { input: VerdictInput; row: Screening }[] = [];
    const seen = new Set<string>();
    const inboxes = new Map<string, Inbox | undefined>();
    const rules = new Map<string, (address: string) => Exemption | undefined>();
    const forgedFrom = new Set<string>();
    for (const v of verdicts) {
      const key = `${v.inboxId}\u0000${v.messageId}`;
      const skip = (reason: VerdictSkip) =>
        skipped.push({ inboxId: v.inboxId, messageId: v.messageId, reason });
      if (seen.has(key)) {
        skip('duplicate');
        continue;
      }
      seen.add(key);
      if (!inboxes.has(v.inboxId)) {
        const owned = await this.deps.inboxes.owned(principal, v.inboxId);
        inboxes.set(v.inboxId, owned.ok ? owned.value : undefined);
      }
      const inbox = inboxes.get(v.inboxId);
      const id = parseMessageId(v.messageId);
      const message =
        inbox === undefined || id === undefined ? undefined : await this.deps.messages.get(inbox.id, id);
      if (inbox === undefined || message === undefined) {
        skip('not_offered');
        continue;
      }
      let rule = rules.get(inbox.id);
      if (rule === undefined) {
        const prefs = await this.deps.profiles.effective(accountId, inbox.id);
        rule = exemption(await this.deps.vips.entries(accountId, inbox.id), prefs);
        rules.set(inbox.id, rule);
      }
      const exempt = rule(message.from.address);
      const row = await this.deps.store.decide(
        accountId,
        inbox.id,
        message.id,
        v.verdict,
        v.reason?.trim() === '' ? null : (v.reason?.trim() ?? null),
        now,
      );
      if (row === undefined) {
        skip(exempt ?? 'not_offered');
        continue;
      }
      if (exempt !== undefined) {
        // Handed out, so its From was found forged (screen); read again only now, as the sender may have become exempt
        // since. Mail never handed out is refused above without a read.
        const folder = await this.deps.folders.get(inbox.id, message.folderId);
        if (folder === undefined || !(await this.failedDmarc(inbox, folder, message))) {
          await this.deps.store.undecide(row.id);
          skip(exempt);
          continue;
        }
        forgedFrom.add(message.id);
      }
      claimed.push({ input: v, row });
    }
    const items = (verdict: Verdict) =>
      claimed
        .filter((c) => c.input.verdict === verdict)
        .map((c) => ({ inboxId: c.row.inboxId, messageId: c.row.messageId }));
    const junk = items('junk');
    const steps: ActStep[] = [];
    if (junk.length > 0) {
      const refused = await this.screenedEverywhere(junk, inboxes);
      if (refused !== undefined) {
        await this.release(claimed.map((c) => c.row));
        return refused;
      }
      // Offers come from the inbox folder; mail someone moved away since (archived, trashed) stays where it was put.
      steps.push({ action: 'screen', targets: { items: junk }, onlyFrom: 'inbox', forgedFrom });
    }
    const unsure = items('unsure');
    if (unsure.length > 0)
      steps.push({ action: 'label', targets: { items: unsure }, labels: [UNSURE_LABEL] });
    let acted =
      steps.length === 0
        ? ok({ changed: [], skipped: [], undoId: null, withoutLease: false, more: false })
        : await this.deps.actions.actMany(principal, steps, 'screen');
    if (
      !acted.ok &&
      acted.error.code === 'provider_error' &&
      acted.error.folderGone === true &&
      (acted.error.partial?.changed.length ?? 0) === 0
    ) {
      // The person deleted Screened elsewhere since its folders were last listed: it is made again, and the
      // verdicts applied once more.
      const refused = await this.screenedEverywhere(junk, inboxes, 'relist');
      if (refused !== undefined) {
        await this.release(claimed.map((c) => c.row));
        return refused;
      }
      acted = await this.deps.actions.actMany(principal, steps, 'screen');
    }
    if (!acted.ok) {
      const kept = new Set(
        acted.error.code === 'provider_error'
          ? (acted.error.partial?.changed ?? []).map((c) => c.messageId)
          : [],
      );
      await this.release(claimed.filter((c) => !kept.has(c.row.messageId)).map((c) => c.row));
      return acted;
    }
    const gone = new Set(acted.value.skipped.filter((s) => s.reason === 'not_found').map((s) => s.messageId));
    const applied: ConfirmOutcome['applied'][number][] = [];
    const lost: Screening[] = [];
    for (const { input, row } of claimed) {
      if (gone.has(row.messageId)) {
        lost.push(row);
        skipped.push({ inboxId: row.inboxId, messageId: row.messageId, reason: 'not_found' });
      } else
        applied.push({ inboxId: row.inboxId, messageId: row.messageId, verdict: input.verdict, id: row.id });
    }
    await this.release(lost);
    if (acted.value.undoId !== null)
      await this.deps.store.setUndo(
        applied.filter((a) => a.verdict !== 'fine').map((a) => a.id),
        acted.value.undoId,
      );
    return ok({ applied, skipped, undoId: acted.value.undoId, withoutLease: acted.value.withoutLease });
  }

  /** Junk still in Screened from a window, with counts for the digest. */
  async review(
    inboxes: readonly Inbox[],
    q: { readonly since: Date; readonly limit: number; readonly offset: number },
  ): Promise<Review> {
    const ids = inboxes.map((i) => i.id);
    const [page, digest] = await Promise.all([
      this.deps.store.screened(ids, q.since, { limit: q.limit, offset: q.offset }),
      this.deps.store.digest(ids, q.since),
    ]);
    const next = q.offset + page.rows.length;
    return { ...page, nextOffset: next < page.total ? next : null, digest, since: q.since };
  }

  /** Moves a screened message back to the inbox and marks its sender known-good. */
  async rescue(
    principal: Principal,
    inboxId: string,
    id: string,
  ): Promise<Result<Resolved & { readonly knownGood: boolean }, ScreeningError>> {
    const found = await this.screenedMessage(principal, inboxId, id);
    if (!found.ok) return found;
    const { screening, message } = found.value;
    const moved = await this.moveOne(principal, 'rescue', screening, message);
    if (!moved.ok) return moved;
    await this.deps.store.resolve(screening.id, 'rescued', this.deps.clock.now());
    const address = message.from.address.toLowerCase();
    const { scope, change } = listChangeBy(principal, screening.inboxId);
    const saved = await this.deps.profiles.amend(principal.accountId, (p) =>
      change(
        change(p, 'knownGoodSenders', (l) => appendCapped(l, address, SCREENING_LIST_MAX.knownGoodSenders)),
        'blockedSenders',
        (l) => l.filter((a) => addressKey(a) !== addressKey(address)),
      ),
    );
    // An address the profile cannot hold (not a plain address) stays out of the list; the move stands.
    return ok({ undoId: moved.value, sender: address, scope, knownGood: saved.ok });
  }

  /**
   * Reports a screened message as spam and blocks its sender's domain (or only the address, and says why) — unless the
   * person's own provider found its From forged (DMARC failed) and the person keeps other mail the block would catch:
   * that is the real sender's mail, which a forger could otherwise have the person screen (decision 0101).
   */
  async report(
    principal: Principal,
    inboxId: string,
    id: string,
  ): Promise<
    Result<Resolved & { readonly blocked: BlockTarget | null; readonly spared: boolean }, ScreeningError>
  > {
    const { accountId } = principal;
    const found = await this.screenedMessage(principal, inboxId, id);
    if (!found.ok) return found;
    const { screening, message, inbox, folder } = found.value;
    const prefs = await this.deps.profiles.effective(accountId, screening.inboxId);
    // Every inbox of the account, whichever the agent reaches: the person's own addresses are never blocked, and
    // mail they keep in any inbox is spared (decision 0101).
    const inboxes = await this.deps.inboxes.all(wholeAccount(accountId));
    const target = blockTarget(message.from.address, {
      vipEntries: [...(await this.deps.vips.list(accountId)).map((v) => v.value), ...prefs.vip.people],
      ownAddresses: inboxes.map((i) => i.email),
      knownGood: prefs.junk.knownGoodSenders,
    });
    // The message is read (before it moves) only when the block would catch mail the person keeps.
    const spared =
      (await this.deps.messages.keepsMailFrom(
        inboxes.map((i) => i.id),
        target.kind === 'domain' ? { domain: target.value } : { address: target.value },
        message.id,
      )) && (await this.failedDmarc(inbox, folder, message));
    const moved = await this.moveOne(principal, 'spam', screening, message);
    if (!moved.ok) return moved;
    await this.deps.store.resolve(screening.id, 'reported', this.deps.clock.now());
    const sender = message.from.address.toLowerCase();
    const { scope, change } = listChangeBy(principal, screening.inboxId);
    if (spared) return ok({ undoId: moved.value, sender, scope, blocked: null, spared });
    const list = target.kind === 'domain' ? 'blockedDomains' : 'blockedSenders';
    const saved = await this.deps.profiles.amend(accountId, (p) =>
      change(p, list, (l) => appendCapped(l, target.value, SCREENING_LIST_MAX[list])),
    );
    return ok({ undoId: moved.value, sender, scope, blocked: saved.ok ? target : null, spared });
  }

  async arrivalRule(inbox: Inbox): Promise<((address: string) => boolean) | undefined> {
    const prefs = await this.deps.profiles.effective(inbox.accountId, inbox.id);
    if (prefs.junk.blockedDomains.length === 0 && prefs.junk.blockedSenders.length === 0) return undefined;
    const isVip = await this.deps.vips.matcher(inbox.accountId, inbox.id);
    return (address) =>
      isBlocked(address, prefs.junk) && !isVip(address) && !isKnownGood(address, prefs.junk);
  }

  async screenArrivals(inbox: Inbox, folderId: FolderId, refs: readonly string[]): Promise<void> {
    const prefs = await this.deps.profiles.effective(inbox.accountId, inbox.id);
    const arrived: MessageSummary[] = [];
    for (const ref of refs) {
      const m = await this.deps.messages.findByRef(folderId, ref);
      if (m !== undefined && !m.starred && m.labels.length === 0) arrived.push(m);
    }
    if (arrived.length === 0) return;
    const ready = await this.ensureScreenedFolder(inbox);
    if (!ready.ok) {
      this.deps.log.warn({ inboxId: inbox.id, errorCode: ready.error.code }, 'blocklist: no Screened folder');
      return;
    }
    const recorded = await this.deps.store.recordBlocked(
      arrived.map((m) => ({
        accountId: inbox.accountId,
        inboxId: inbox.id,
        messageId: m.id,
        senderAddress: m.from.address,
        reason: blockingEntry(m.from.address, prefs.junk) ?? '',
      })),
      this.deps.clock.now(),
    );
    if (recorded.length === 0) return;
    const actor: Actor = { service: 'sync', accountId: inbox.accountId };
    const acted = await this.deps.actions.actMany(
      actor,
      [
        {
          action: 'screen',
          targets: { items: recorded.map((r) => ({ inboxId: r.inboxId, messageId: r.messageId })) },
          // Arrivals of the inbox folder: one an agent moved since it was indexed stays where it was put.
          onlyFrom: 'inbox',
        },
      ],
      'screen',
    );
    const moved = new Set(
      acted.ok
        ? acted.value.changed.map((c) => c.messageId)
        : acted.error.code === 'provider_error'
          ? (acted.error.partial?.changed ?? []).map((c) => c.messageId)
          : [],
    );
    await this.release(recorded.filter((r) => !moved.has(r.messageId)));
    const undoId = acted.ok
      ? acted.value.undoId
      : acted.error.code === 'provider_error'
        ? acted.error.partial?.undoId
        : null;
    if (undoId !== null && undoId !== undefined)
      await this.deps.store.setUndo(
        recorded.filter((r) => moved.has(r.messageId)).map((r) => r.id),
        undoId,
      );
    if (!acted.ok)
      this.deps.log.warn({ inboxId: inbox.id, errorCode: acted.error.code }, 'blocklist: not moved');
    else this.deps.log.info({ inboxId: inbox.id, screened: moved.size }, 'blocklist: screened on arrival');
  }

  /** The screened row and its message, which must still be in Screened. */
  private async screenedMessage(
    who: Reach,
    inboxId: string,
    id: string,
  ): Promise<
    Result<{ screening: Screening; message: MessageSummary; inbox: Inbox; folder: Folder }, ScreeningError>
  > {
    const inbox = await this.deps.inboxes.usable(who, inboxId);
    if (!inbox.ok) return err(inbox.error);
    const notFound = err({
      code: 'screened_not_found' as const,
      message: 'No screened message with this id in this inbox, or it is no longer in Screened.',
    });
    const screening = /^scr_[a-z0-9]{20}$/.test(id)
      ? await this.deps.store.get(who.accountId, inbox.value.id, id)
      : undefined;
    if (screening === undefined || screening.verdict !== 'junk') return notFound;
    const messageId = parseMessageId(screening.messageId);
    const message =
      messageId === undefined ? undefined : await this.deps.messages.get(inbox.value.id, messageId);
    if (message === undefined) return notFound;
    const folder = await this.deps.folders.get(inbox.value.id, message.folderId);
    if (folder?.canonical !== 'screened') return notFound;
    return ok({ screening, message, inbox: inbox.value, folder });
  }

  /**
   * Whether the message's From was found forged (`fromFailedDmarc`), read from the mailbox. A message the mailbox cannot
   * give now, or one with no Authentication-Results (many IMAP servers write none), is not shown forged.
   */
  private async failedDmarc(inbox: Inbox, folder: Folder, message: MessageSummary): Promise<boolean> {
    let session: MailSession | undefined;
    try {
      session = await this.deps.sessions.open(inbox);
      const full = await session.fetchMessage(folder.path, message.providerRef);
      return full !== undefined && fromFailedDmarc(full);
    } catch (e) {
      if (!(e instanceof MailProviderError || e instanceof MailAuthError)) throw e;
      return false;
    } finally {
      await session?.close().catch(() => undefined);
    }
  }

  private async moveOne(
    principal: Principal,
    action: 'rescue' | 'spam',
    screening: Screening,
    message: MessageSummary,
  ): Promise<Result<string | null, ScreeningError>> {
    const r = await this.deps.actions.act({
      principal,
      action,
      targets: { items: [{ inboxId: screening.inboxId, messageId: message.id }] },
      onlyFrom: 'screened',
      confirmedForVip: false,
    });
    if (!r.ok) return r;
    if (r.value.changed.length === 0)
      return err({ code: 'screened_not_found', message: 'The message is no longer in the mailbox.' });
    return ok(r.value.undoId);
  }

  /** `ensureScreenedFolder` for each inbox the junk is in: the first refusal, if any. */
  private async screenedEverywhere(
    junk: readonly { readonly inboxId: string }[],
    inboxes: ReadonlyMap<string, Inbox | undefined>,
    relist?: 'relist',
  ): Promise<Err<ScreeningError> | undefined> {
    for (const inboxId of new Set(junk.map((j) => j.inboxId))) {
      const inbox = inboxes.get(inboxId);
      const ready = inbox === undefined ? undefined : await this.ensureScreenedFolder(inbox, relist);
      if (ready !== undefined && !ready.ok) return ready;
    }
    return undefined;
  }

  /**
   * The inbox has a folder with the screened role, created at the provider when missing. `relist`: the index's
   * folders are out of date (a move to Screened found it gone), so the provider's list is read whatever the index says.
   */
  private async ensureScreenedFolder(
    inbox: Inbox,
    relist?: 'relist',
  ): Promise<Result<Folder, ScreeningError>> {
    if (relist === undefined) {
      const have = (await this.deps.folders.list(inbox.id)).find((f) => f.canonical === 'screened');
      if (have !== undefined) return ok(have);
    }
    try {
      const folders = await foldersWithRole(this.deps, inbox, 'screened', SCREENED_FOLDER_NAME);
      const made = folders.find((f) => f.canonical === 'screened');
      return made !== undefined
        ? ok(made)
        : err({ code: 'not_supported', message: 'This mailbox did not accept a Screened folder.' });
    } catch (e) {
      if (!(e instanceof MailProviderError || e instanceof MailAuthError)) throw e;
      return err({
        code: 'provider_error',
        message: `The mailbox refused the Screened folder: ${e.message}`,
      });
    }
  }

  private async release(rows: readonly Screening[]): Promise<void> {
    for (const r of rows) await this.deps.store.undecide(r.id);
  }

  /**
   * Reads each message whose From names an exempt sender (decision 0101): one the person's provider found forged
   * (DMARC failed) is handed out like a stranger's, read once here for its details; the others are settled fine and
   * never read again — also one the mailbox refuses to give, which keeps the rule it had before (never handed out), so
   * that no message is read again and again. At most `CLAIMS_CHECKED` a call, the newest first: every call settles or
   * hands out those it reads, so a backlog shrinks. A mailbox that cannot be opened now leaves them for the next call.
   */
  private async claimsChecked(
    inbox: Inbox,
    folder: Folder,
    claimants: readonly { readonly message: MessageSummary; readonly exemption: Exemption }[],
  ): Promise<{ messages: Omit<Found, 'inbox' | 'folder'>[]; unchecked: boolean }> {
    if (claimants.length === 0) return { messages: [], unchecked: false };
    let session: MailSession;
    try {
      session = await this.deps.sessions.open(inbox);
    } catch (e) {
      if (!(e instanceof MailProviderError || e instanceof MailAuthError)) throw e;
      return { messages: [], unchecked: false };
    }
    const forged: Omit<Found, 'inbox' | 'folder'>[] = [];
    const settled: MessageSummary[] = [];
    try {
      for (const { message, exemption } of claimants.slice(0, CLAIMS_CHECKED)) {
        let full: FullMessage | undefined;
        try {
          full = await session.fetchMessage(folder.path, message.providerRef);
        } catch (e) {
          if (!(e instanceof MailProviderError || e instanceof MailAuthError)) throw e;
        }
        if (full !== undefined && fromFailedDmarc(full))
          forged.push({ message, impersonates: exemption, full });
        else settled.push(message);
      }
    } finally {
      await session.close().catch(() => undefined);
    }
    await this.deps.store.recordExempt(
      settled.map((m) => ({
        accountId: inbox.accountId,
        inboxId: inbox.id,
        messageId: m.id,
        senderAddress: m.from.address,
      })),
      this.deps.clock.now(),
    );
    return { messages: forged, unchecked: claimants.length > CLAIMS_CHECKED };
  }

  /**
   * Unscreened messages of the inbox folder from senders that may be judged, up to one batch; and apart, those met on
   * the way whose From names an exempt sender, to be checked for forgery.
   */
  private async pick(
    inbox: Inbox,
    folder: Folder,
    exempt: (address: string) => Exemption | undefined,
  ): Promise<{
    messages: MessageSummary[];
    claimants: { message: MessageSummary; exemption: Exemption }[];
    more: boolean;
  }> {
    const out: MessageSummary[] = [];
    const claimants: { message: MessageSummary; exemption: Exemption }[] = [];
    for (let round = 0; round < CANDIDATE_ROUNDS; round++) {
      const page = await this.deps.store.unscreened(inbox.id, folder.id, {
        limit: CANDIDATE_PAGE,
        offset: round * CANDIDATE_PAGE,
      });
      for (const m of page) {
        const exemption = exempt(m.from.address);
        if (exemption !== undefined) {
          claimants.push({ message: m, exemption });
          continue;
        }
        if (out.length === SCREEN_BATCH) return { messages: out, claimants, more: true };
        out.push(m);
      }
      if (page.length < CANDIDATE_PAGE) return { messages: out, claimants, more: false };
    }
    return { messages: out, claimants, more: true };
  }

  /**
   * For each message of the batch, whether its display name reads as one a VIP or known-good sender of its inbox used
   * on mail the account's inboxes hold, and its address is another (decisions 0107, 0118: compared as `borrowsName`
   * reads names — case, order, accents, added words and look-alike letters do not hide a copy). The trusted senders'
   * names are read in one statement for the batch. Names with an @ (an address, which `nameShowsOtherAddress` reads)
   * are not compared.
   */
  private async trustedNames(
    accountId: AccountId,
    batch: readonly Found[],
    rules: ReadonlyMap<string, (address: string) => Exemption | undefined>,
    trusted: { readonly addresses: readonly string[]; readonly domains: readonly string[] },
  ): Promise<(message: MessageSummary) => Exemption | null> {
    if (!batch.some((b) => b.message.from.name.trim() !== '' && !b.message.from.name.includes('@')))
      return () => null;
    // Names trusted in any inbox of the account, whichever the agent reaches: a protection, never shown to it.
    const inboxIds = (await this.deps.inboxes.all(wholeAccount(accountId))).map((i) => i.id);
    // Each trusted name in words once: a batch of 50 against up to 5,000 names.
    const senders = (await this.deps.messages.sendersOf(inboxIds, trusted)).map((p) => ({
      address: p.address,
      key: addressKey(p.address),
      words: nameWords(p.name),
    }));
    return (message) => {
      const rule = rules.get(message.inboxId);
      const { name } = message.from;
      if (rule === undefined || name.includes('@')) return null;
      const own = addressKey(message.from.address);
      const words = nameWords(name);
      const kinds = senders
        .filter((p) => p.key !== own && borrowsWords(words, p.words))
        .map((p) => rule(p.address));
      return kinds.includes('vip') ? 'vip' : kinds.includes('known_good') ? 'known_good' : null;
    };
  }

  /** Authentication signals, first-time sender and the start of the text, read in one session per inbox. */
  private async details(
    inbox: Inbox,
    batch: readonly Omit<Found, 'inbox'>[],
    trustedName: (message: MessageSummary) => Exemption | null,
  ): Promise<Candidate[]> {
    const out: Candidate[] = [];
    let session: MailSession | undefined;
    try {
      session = await this.deps.sessions.open(inbox);
    } catch (e) {
      if (!(e instanceof MailProviderError || e instanceof MailAuthError)) throw e;
    }
    try {
      for (const { folder, message, impersonates, full: read } of batch) {
        const earlier = await this.deps.messages.list(inbox.id, {
          fromAddress: message.from.address,
          limit: 1,
          offset: 0,
        });
        let body: FencedBody | null = null;
        let signals = NO_SIGNALS;
        let replyTo: readonly Address[] = [];
        if (session !== undefined || read !== undefined) {
          try {
            const full = read ?? (await session?.fetchMessage(folder.path, message.providerRef));
            if (full !== undefined) {
              const text =
                full.text.trim() !== '' ? full.text : full.html === null ? '' : htmlToText(full.html);
              body = fenceUntrusted(text, EXCERPT_CHARS);
              signals = parseAuthResults(full.authenticationResults);
              replyTo = full.replyTo;
            }
          } catch (e) {
            if (!(e instanceof MailProviderError || e instanceof MailAuthError)) throw e;
          }
        }
        out.push({
          message,
          signals,
          firstTimeSender: earlier.total <= 1,
          body,
          replyTo,
          impersonates,
          usesNameOf: trustedName(message),
          nameShowsOtherAddress: otherAddressShown(message.from.name, message.from.address) !== undefined,
        });
      }
    } finally {
      await session?.close().catch(() => undefined);
    }
    return out;
  }
}

/**
 * The person's own provider found the From not its sender's: DMARC failed in the topmost Authentication-Results, the
 * one the receiving server writes above everything a sender can (auth-results.ts).
 */
function fromFailedDmarc(message: FullMessage): boolean {
  return parseAuthResults(message.authenticationResults).dmarc === 'fail';
}

/**
 * How a rescue or a report by `who` changes a screening list: everywhere, for an agent that reaches every inbox (or the
 * person); in the message's inbox alone for one limited to some, whose lessons are not every inbox's (decision 0143).
 */
function listChangeBy(who: Reach, inboxId: string) {
  const scope: ListScope = who.inboxes === null ? 'every_inbox' : 'this_inbox';
  const change = (
    p: TriageProfile,
    list: ScreeningList,
    edit: (entries: readonly string[]) => string[],
  ): TriageProfile =>
    scope === 'every_inbox'
      ? changeScreeningList(p, list, edit)
      : changeInboxScreeningList(p, inboxId, list, edit);
  return { scope, change };
}

/** Adds a value at the end unless present; the oldest entries give way when the list is full. */
function appendCapped(list: readonly string[], value: string, max: number): string[] {
  if (list.includes(value)) return [...list];
  return [...list, value].slice(-max);
}

/** VIP and known-good senders of an inbox, whose mail is never handed out unless its From was forged. */
function exemption(
  vips: { readonly emails: readonly string[]; readonly domains: readonly string[] },
  prefs: TriagePrefs,
): (address: string) => Exemption | undefined {
  const isVip = vipMatcher(vips);
  return (address) => (isVip(address) ? 'vip' : isKnownGood(address, prefs.junk) ? 'known_good' : undefined);
}
