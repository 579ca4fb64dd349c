import type { Clock } from '../../lib/clock.ts';
import { newId, randomToken } from '../../lib/random.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import { newSecret, pkceChallenge, sha256Hex } from '../../lib/secret-token.ts';
import type { AccountId } from '../accounts/account.ts';
import { reaches, wholeAccount, type Reach } from '../auth/inbox-reach.ts';
import { normaliseEmail } from '../accounts/password-hasher.ts';
import { MailProviderError, type LoginFailure, type MailConnector } from '../mail/mail-ports.ts';
import type { MailCredential } from '../mail/mail-types.ts';
import { SignInError, type ProviderSignIn } from './provider-sign-in.ts';
import type { CredentialVault } from './credential-vault.ts';
import { UNFIT_IN_A_NAME } from '../../lib/shown-text.ts';
import { inboxError, type InboxError } from './inbox-errors.ts';
import type { InboxPlace, InboxStore, MailServers, SelectedPageQuery } from './inbox-store.ts';
import { domainKey } from '../messages/address-key.ts';
import { parseMessageId } from '../messages/message.ts';
import { checkSenderName } from '../drafts/draft-input.ts';
import type { SubmissionLoginTester } from '../sending/mail-submitter.ts';
import { inboxView, type InboxView } from './inbox-view.ts';
import { parseInboxId, type Inbox, type InboxId, type Provider } from './inbox.ts';
import {
  defaultSmtpHost,
  detectProvider,
  ICLOUD_IMAP,
  ICLOUD_SMTP,
  isValidHostname,
  providerFromMailExchanges,
  submissionUser,
  type MailExchangeLookup,
  type ProviderGuess,
} from './provider-detection.ts';
import type { SecretLinkStore } from './secret-link-store.ts';

export interface AddInboxInput {
  readonly label: string;
  readonly provider: Provider;
  readonly email: string;
  readonly imapHost?: string | undefined;
  readonly imapPort?: number | undefined;
  readonly imapUser?: string | undefined;
  /** Where mail is submitted; default: the IMAP host with `imap.` replaced by `smtp.`, port 587. */
  readonly smtpHost?: string | undefined;
  readonly smtpPort?: number | undefined;
}

/** Servers as the person or an agent wrote them: ports default to 993 and 587, the SMTP host to IMAP's `smtp.` twin. */
export type ServersInput = Pick<AddInboxInput, 'imapHost' | 'imapPort' | 'smtpHost' | 'smtpPort'>;

/** A password saved: the inbox, and why sending with it would fail, when the submission server refused or was away. */
export interface Connected {
  readonly inbox: Inbox;
  readonly sending?: LoginFailure;
}

/** Why nothing was saved: the link, the login at the IMAP server, or servers that cannot be (said in `message`). */
export type CaptureFailure =
  | LoginFailure
  | { readonly reason: 'link_invalid' }
  | { readonly reason: 'invalid_servers'; readonly message: string };

export interface InboxServiceDeps {
  readonly inboxes: InboxStore;
  readonly vault: CredentialVault;
  readonly links: SecretLinkStore;
  readonly imap: MailConnector;
  /** Where a password is also tried before it is saved: the inbox's submission server. */
  readonly submission: SubmissionLoginTester;
  readonly clock: Clock;
  readonly baseUrl: string;
  readonly maxInboxesPerAccount: number;
  /** Called after a credential is saved (the first sync starts in the background). */
  readonly onConnected: (inbox: Inbox) => void;
  /** Provider sign-ins; each absent when the operator has not configured its OAuth client. */
  readonly google?: ProviderSignIn | undefined;
  readonly microsoft?: ProviderSignIn | undefined;
  /** Where a custom domain's mail goes (DNS), to tell a Google Workspace or Microsoft 365 address from IMAP. */
  readonly mailExchanges: MailExchangeLookup;
  /** Called with a credential that is no longer kept (revocation at the provider); failures are logged there. */
  readonly onCredentialDropped?: (inboxId: InboxId, credential: MailCredential) => Promise<void>;
  /** After an inbox is removed: what other services keep for it (the triage profile's override) goes too. */
  readonly onRemoved?: (accountId: AccountId, inboxId: InboxId) => Promise<void>;
}

/** The provider's sign-in could not be reached, or answered nonsense: its outage, said in words. */
export interface SignInUnreachable {
  readonly code: 'provider_error';
  readonly message: string;
}

/** The operator has not set up this provider's sign-in (its OAuth app): nothing the person can do but ask them. */
export interface SignInNotConfigured {
  readonly code: 'sign_in_not_configured';
  readonly message: string;
}

/** Providers whose inboxes connect by an OAuth sign-in. */
export type SignInProvider = 'google' | 'microsoft';
/**
 * Each sign-in provider's name, the name of the mail it serves, as the person knows them; and what the operator sets
 * to turn its sign-in on, with the README section that says how.
 */
export const SIGN_IN_NAMES: Readonly<
  Record<
    SignInProvider,
    { readonly brand: string; readonly mail: string; readonly settings: string; readonly readme: string }
  >
> = {
  google: {
    brand: 'Google',
    mail: 'Gmail',
    settings: 'GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET',
    readme: 'Gmail for operators',
  },
  microsoft: {
    brand: 'Microsoft',
    mail: 'Outlook / Microsoft 365',
    settings: 'MICROSOFT_CLIENT_ID and MICROSOFT_CLIENT_SECRET',
    readme: 'Microsoft for operators',
  },
};

/** What the operator sets to turn a provider's sign-in on (README, "Gmail for operators" / "Microsoft for operators"). */
export const SIGN_IN_NOT_CONFIGURED: Readonly<Record<SignInProvider, string>> = {
  google: notConfigured('google'),
  microsoft: notConfigured('microsoft'),
};

function notConfigured(provider: SignInProvider): string {
  const n = SIGN_IN_NAMES[provider];
  return `${n.brand} sign-in is not configured on this server: the operator sets ${n.settings} (README, "${n.readme}").`;
}

const SIGNIN_TTL_MS = 15 * 60_000;

/** How a provider sign-in ended, for the callback page. */
export type SignInFailure =
  { readonly reason: 'link_invalid' } | { readonly reason: 'refused'; readonly message: string };

const CAPTURE_TTL_MS = 15 * 60_000;
const CAPTURE_MAX_ATTEMPTS = 5;

/** Connecting inboxes without a password ever passing through an agent (contract §1, §4.5). */
export class InboxService {
  private readonly deps: InboxServiceDeps;
  constructor(deps: InboxServiceDeps) {
    this.deps = deps;
  }

  async list(who: Reach): Promise<InboxView[]> {
    return (await this.all(who)).map(inboxView);
  }

  /** Every inbox of the account within reach, oldest first. */
  async all(who: Reach): Promise<Inbox[]> {
    const all = await this.deps.inboxes.list(who.accountId);
    return who.inboxes === null ? all : all.filter((i) => reaches(who.inboxes, i.id));
  }

  /**
   * The inbox if it belongs to the account and is within reach (decision 0142): the tenant check every tool goes
   * through. An inbox out of reach is not found, as another account's is.
   */
  async owned(who: Reach, inboxId: string): Promise<Result<Inbox, InboxError>> {
    const id = this.reachable(who, inboxId);
    const inbox = id !== undefined ? await this.deps.inboxes.get(who.accountId, id) : undefined;
    return inbox === undefined ? err(notFound()) : ok(inbox);
  }

  /** The inbox, ready to talk to its provider: owned, within reach, not paused, with a working credential. */
  async usable(who: Reach, inboxId: string): Promise<Result<Inbox, InboxError>> {
    const owned = await this.owned(who, inboxId);
    if (!owned.ok) return owned;
    const refused = unusable(owned.value);
    return refused === undefined ? owned : err(refused);
  }

  /**
   * `usable`, and the inbox's folders read with it (one statement): for the calls that read or change its mail.
   * With `also`, the page of its selected folders, or the messages with these ids, are read in that statement too
   * (decision 0047).
   */
  async usableWithFolders(
    who: Reach,
    inboxId: string,
    also?: { readonly page: SelectedPageQuery } | { readonly messages: readonly string[] },
  ): Promise<Result<InboxPlace, InboxError>> {
    const id = this.reachable(who, inboxId);
    if (id === undefined) return err(notFound());
    const { accountId } = who;
    let found: InboxPlace | undefined;
    if (also === undefined) found = await this.deps.inboxes.getWithFolders(accountId, id);
    else if ('page' in also) {
      const read = await this.deps.inboxes.getWithSelectedPage(accountId, id, also.page);
      found = read && {
        inbox: read.inbox,
        folders: read.folders,
        selectedPage: { query: also.page, page: read.page },
      };
    } else {
      const ids = also.messages.flatMap((m) => parseMessageId(m) ?? []);
      found = await this.deps.inboxes.getWithMessages(accountId, id, ids);
    }
    if (found === undefined) return err(notFound());
    const refused = unusable(found.inbox);
    return refused === undefined ? ok(found) : err(refused);
  }

  /** The id, when it is one and `who` may reach it; checked before any read, so an inbox out of reach costs none. */
  private reachable(who: Reach, inboxId: string): InboxId | undefined {
    const id = parseInboxId(inboxId);
    return id !== undefined && reaches(who.inboxes, id) ? id : undefined;
  }

  /**
   * Registers a mailbox, or finds it already registered (decision 0043): an agent that retries, or asks twice,
   * gets the inbox it added before (`added: false`), never a second inbox syncing the same mail.
   */
  async add(
    accountId: AccountId,
    input: AddInboxInput,
  ): Promise<Result<{ readonly inbox: Inbox; readonly added: boolean }, InboxError>> {
    const email = normaliseEmail(input.email);
    if (email === undefined) return err(inboxError('invalid_arguments', 'email must be a valid address.'));
    const label = input.label.trim();
    if (label === '' || label.length > 80)
      return err(inboxError('invalid_arguments', 'label must be 1 to 80 characters.'));
    // Shown to the person beside their other inboxes: one line, nothing that turns the text around it (0106).
    if (UNFIT_IN_A_NAME.test(label))
      return err(
        inboxError(
          'invalid_arguments',
          'label must be text on one line, with no control characters or direction overrides.',
        ),
      );
    let servers: MailServers | { [K in keyof MailServers]: null } = NO_SERVERS;
    if (input.provider === 'imap') {
      const checked = imapServers(input);
      if (!checked.ok) return checked;
      servers = checked.value;
    } else if (input.provider === 'icloud') {
      servers = ICLOUD_SERVERS;
    }
    const imapUser = input.imapUser?.trim() === '' ? undefined : input.imapUser?.trim();
    if (imapUser !== undefined && (imapUser.length > 254 || /[\r\n\0]/.test(imapUser)))
      return err(inboxError('invalid_arguments', 'imapUser is not a valid user name.'));
    const now = this.deps.clock.now();
    const candidate = {
      id: newId('inbox') as InboxId,
      accountId,
      label,
      provider: input.provider,
      email,
      ...servers,
      imapUser: input.provider === 'imap' || input.provider === 'icloud' ? (imapUser ?? null) : null,
      isDemo: false,
      connectionStatus: 'not_connected' as const,
      createdAt: now,
    };
    const made = await this.deps.inboxes.createWithinLimit(
      candidate,
      this.deps.maxInboxesPerAccount,
      (existing) => sameMailbox(existing, candidate),
    );
    return made.ok
      ? made
      : err(
          inboxError(
            'invalid_arguments',
            `An account can have at most ${String(this.deps.maxInboxesPerAccount)} inboxes.`,
          ),
        );
  }

  /** A single-use link to a masked password form, bound to this inbox and account, valid 15 minutes. */
  async startSecretCapture(
    who: Reach,
    inboxId: string,
  ): Promise<Result<{ url: string; expiresAt: Date; inbox: Inbox }, InboxError>> {
    const owned = await this.owned(who, inboxId);
    if (!owned.ok) return owned;
    const inbox = owned.value;
    if (inbox.provider !== 'imap' && inbox.provider !== 'icloud') {
      return err(
        inboxError(
          'not_supported',
          `A ${inbox.provider} inbox connects by signing in with ${SIGN_IN_NAMES[inbox.provider].brand}, not with a password.`,
        ),
      );
    }
    if (inbox.isDemo) return err(inboxError('not_supported', 'The demo inbox needs no credential.'));
    const token = newSecret('cap_', 40);
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + CAPTURE_TTL_MS);
    await this.deps.links.create({
      idHash: sha256Hex(token),
      purpose: 'imap_capture',
      accountId: who.accountId,
      inboxId: inbox.id,
      payload: {},
      createdAt: now,
      expiresAt,
    });
    return ok({ url: `${this.deps.baseUrl}/connect/imap?token=${token}`, expiresAt, inbox });
  }

  /** What the capture form shows, or undefined when the link is not live. */
  async captureTarget(token: string): Promise<{ inbox: Inbox; attemptsLeft: number } | undefined> {
    const link = await this.deps.links.find(sha256Hex(token), 'imap_capture', this.deps.clock.now());
    if (link?.inboxId === null || link === undefined || link.attempts >= CAPTURE_MAX_ATTEMPTS)
      return undefined;
    const inbox = await this.deps.inboxes.get(link.accountId, link.inboxId);
    return inbox && { inbox, attemptsLeft: CAPTURE_MAX_ATTEMPTS - link.attempts };
  }

  /**
   * The form's submission: the login is tested before anything is saved; a failure says why and counts against
   * the link (5 tries). On success the credential is sealed, the link consumed and the first sync started.
   *
   * The password is also tried at the inbox's submission server (SMTP), where it goes when mail is sent: a failure
   * there does not stop the save — reading works — and comes back as `sending`, in words, for the page to say.
   *
   * `change` moves an IMAP inbox to other servers (decision 0095), tested with this password before anything is
   * saved. Only the account's owner may: the link alone, which an agent handed over and may hold, cannot send the
   * person's password, nor their approved mail, somewhere else.
   */
  async completeSecretCapture(
    token: string,
    username: string,
    password: string,
    change?: { readonly by: AccountId; readonly servers: ServersInput },
  ): Promise<Result<Connected, CaptureFailure>> {
    const idHash = sha256Hex(token);
    const target = await this.captureTarget(token);
    if (target === undefined) return err({ reason: 'link_invalid' });
    const { inbox } = target;
    const moved = change === undefined ? ok(undefined) : await this.moveTo(inbox, change);
    if (!moved.ok) return moved;
    const servers = moved.value;
    const at = servers ?? inbox;
    const user = username.trim() === '' ? (inbox.imapUser ?? inbox.email) : username.trim();
    const credential = { kind: 'password' as const, username: user, password };
    const failure = await this.deps.imap.testLogin(
      { host: at.imapHost ?? '', port: at.imapPort ?? 993 },
      credential,
    );
    if (failure !== undefined) {
      await this.deps.links.countAttempt(idHash);
      return err(failure);
    }
    const sending =
      at.smtpHost === null
        ? undefined
        : await this.deps.submission.testLogin(
            { host: at.smtpHost, port: at.smtpPort ?? 587 },
            { ...credential, username: submissionUser(inbox.provider, user) },
          );
    if (!(await this.deps.links.consume(idHash, this.deps.clock.now())))
      return err({ reason: 'link_invalid' });
    const now = this.deps.clock.now();
    await this.deps.vault.put(inbox.id, credential, now);
    const updated = await this.deps.inboxes.update(
      inbox.accountId,
      inbox.id,
      {
        connectionStatus: 'connected',
        lastError: null,
        credentialSetAt: now,
        ...(servers !== undefined && { servers }),
      },
      now,
    );
    const connected = updated ?? inbox;
    this.deps.onConnected(connected);
    return ok(sending === undefined ? { inbox: connected } : { inbox: connected, sending });
  }

  /** Servers the owner gave an IMAP inbox on its password page, checked; refused in words. */
  private async moveTo(
    inbox: Inbox,
    change: { readonly by: AccountId; readonly servers: ServersInput },
  ): Promise<Result<MailServers, CaptureFailure>> {
    const refuse = (message: string) => err({ reason: 'invalid_servers' as const, message });
    if (change.by !== inbox.accountId || inbox.provider !== 'imap')
      return refuse('Only the owner of an IMAP inbox changes its servers.');
    const checked = imapServers(change.servers);
    if (!checked.ok) return refuse(checked.error.message);
    const moved = { ...inbox, ...checked.value };
    const twin = (await this.deps.inboxes.list(inbox.accountId)).find(
      (other) => other.id !== inbox.id && sameMailbox(other, moved),
    );
    return twin === undefined
      ? checked
      : refuse(`Another inbox here, “${twin.label}”, already reads this mailbox at ${moved.imapHost}.`);
  }

  async setPaused(
    accountId: AccountId,
    inboxId: string,
    paused: boolean,
  ): Promise<Result<Inbox, InboxError>> {
    const owned = await this.owned(wholeAccount(accountId), inboxId);
    if (!owned.ok) return owned;
    const updated = await this.deps.inboxes.update(
      accountId,
      owned.value.id,
      { paused },
      this.deps.clock.now(),
    );
    return updated === undefined ? err(inboxError('inbox_not_found', 'The inbox was removed.')) : ok(updated);
  }

  /**
   * The person's name on the mail they send from this inbox, set by them on the console (decision 0088); empty for
   * none. Checked as a header value is: refused with `invalid_arguments` in words.
   */
  async setSenderName(
    accountId: AccountId,
    inboxId: string,
    raw: string,
  ): Promise<Result<Inbox, InboxError>> {
    const name = checkSenderName(raw);
    if (!name.ok) return err(inboxError('invalid_arguments', name.error));
    const owned = await this.owned(wholeAccount(accountId), inboxId);
    if (!owned.ok) return owned;
    const updated = await this.deps.inboxes.update(
      accountId,
      owned.value.id,
      { senderName: name.value },
      this.deps.clock.now(),
    );
    return updated === undefined ? err(inboxError('inbox_not_found', 'The inbox was removed.')) : ok(updated);
  }

  /** A name learned from the person's Sent mail, kept unless they set one meanwhile; the inbox as it now stands. */
  async learnedSenderName(inbox: Inbox, name: string): Promise<Inbox> {
    const kept = await this.deps.inboxes.learnSenderName(
      inbox.accountId,
      inbox.id,
      name,
      this.deps.clock.now(),
    );
    return { ...inbox, senderName: kept ?? name };
  }

  /**
   * A sign-in link for a google or microsoft inbox: the authorization-code flow with PKCE S256 (the verifier stays
   * on the server) and a `state` that is single use, bound to this account and inbox, and lives 15 minutes.
   */
  async startSignIn(
    who: Reach,
    inboxId: string,
    provider: SignInProvider,
  ): Promise<
    Result<
      { url: string; expiresAt: Date; inbox: Inbox },
      InboxError | SignInUnreachable | SignInNotConfigured
    >
  > {
    const owned = await this.owned(who, inboxId);
    if (!owned.ok) return owned;
    const inbox = owned.value;
    if (inbox.provider !== provider)
      return err(
        inboxError(
          'not_supported',
          inbox.provider === 'google' || inbox.provider === 'microsoft'
            ? `This is a ${inbox.provider} inbox: it signs in with ${SIGN_IN_NAMES[inbox.provider].brand}, not ${SIGN_IN_NAMES[provider].brand}.`
            : `A ${inbox.provider} inbox connects with its mailbox password through a password link, not a ${SIGN_IN_NAMES[provider].brand} sign-in.`,
        ),
      );
    if (inbox.isDemo) return err(inboxError('not_supported', 'The demo inbox needs no sign-in.'));
    const signIn = provider === 'google' ? this.deps.google : this.deps.microsoft;
    if (signIn === undefined)
      return err({ code: 'sign_in_not_configured', message: SIGN_IN_NOT_CONFIGURED[provider] });
    const state = newSecret(provider === 'google' ? 'gst_' : 'mst_', 40);
    const verifier = randomToken(64);
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + SIGNIN_TTL_MS);
    await this.deps.links.create({
      idHash: sha256Hex(state),
      purpose: provider === 'google' ? 'google_signin' : 'microsoft_signin',
      accountId: who.accountId,
      inboxId: inbox.id,
      payload: { verifier },
      createdAt: now,
      expiresAt,
    });
    try {
      const url = await signIn.authorizationUrl({
        state,
        codeChallenge: pkceChallenge(verifier),
        loginHint: inbox.email,
      });
      return ok({ url, expiresAt, inbox });
    } catch (e) {
      // The provider's sign-in unreachable (its discovery document): its outage in words, not a failure of ours.
      if (!(e instanceof MailProviderError)) throw e;
      return err({ code: 'provider_error', message: `${e.message}; try again in a few minutes.` });
    }
  }

  /**
   * The provider's redirect back: the state is used up first (a replayed callback does nothing), the code traded
   * with the verifier, and the refresh token sealed. When the provider signed in another address than the
   * inbox's, the inbox takes the signed-in address and the page says so.
   */
  async completeSignIn(
    provider: SignInProvider,
    state: string,
    code: string,
  ): Promise<Result<{ inbox: Inbox; previousEmail: string | null }, SignInFailure>> {
    const signIn = provider === 'google' ? this.deps.google : this.deps.microsoft;
    const idHash = sha256Hex(state);
    const now = this.deps.clock.now();
    const link = await this.deps.links.find(
      idHash,
      provider === 'google' ? 'google_signin' : 'microsoft_signin',
      now,
    );
    if (signIn === undefined || link === undefined || link.inboxId === null)
      return err({ reason: 'link_invalid' });
    if (!(await this.deps.links.consume(idHash, now))) return err({ reason: 'link_invalid' });
    const inbox = await this.deps.inboxes.get(link.accountId, link.inboxId);
    const verifier = (link.payload as { verifier?: unknown } | null)?.verifier;
    if (inbox === undefined || typeof verifier !== 'string') return err({ reason: 'link_invalid' });
    let signedIn: { refreshToken: string; email: string; name?: string };
    try {
      signedIn = await signIn.exchange(code, verifier);
    } catch (e) {
      if (e instanceof SignInError || e instanceof MailProviderError)
        return err({ reason: 'refused', message: e.message });
      throw e;
    }
    const email = normaliseEmail(signedIn.email) ?? inbox.email;
    const previous = await this.deps.vault.get(inbox.id);
    // Written at the time of writing (not when the callback began): an operation that read the old credential
    // before this moment and fails with it afterwards must not mark the inbox again (markNeedsReconnect).
    await this.deps.vault.put(
      inbox.id,
      { kind: provider, username: email, refreshToken: signedIn.refreshToken },
      this.deps.clock.now(),
    );
    if (previous?.kind === provider && previous.refreshToken !== signedIn.refreshToken)
      await this.deps.onCredentialDropped?.(inbox.id, previous);
    const updated = await this.deps.inboxes.update(
      inbox.accountId,
      inbox.id,
      {
        connectionStatus: 'connected',
        lastError: null,
        credentialSetAt: this.deps.clock.now(),
        ...(email !== inbox.email && { email }),
      },
      this.deps.clock.now(),
    );
    // The person's name as the provider shows it on their mail (Microsoft's displayName), for the mail they send
    // from here: kept only while none is known, so a name the person set, or one learned before, stays (0088).
    const name = checkSenderName(signedIn.name ?? '');
    const named =
      name.ok && name.value !== '' && name.value.toLowerCase() !== email && updated !== undefined
        ? await this.learnedSenderName(updated, name.value)
        : updated;
    const connected = named ?? inbox;
    this.deps.onConnected(connected);
    return ok({ inbox: connected, previousEmail: email !== inbox.email ? inbox.email : null });
  }

  /**
   * Removes the inbox from this service: its index, credential and links; a Google sign-in is revoked at Google.
   * The mailbox itself is untouched.
   */
  async remove(accountId: AccountId, inboxId: string): Promise<boolean> {
    const owned = await this.owned(wholeAccount(accountId), inboxId);
    if (!owned.ok) return false;
    const credential = await this.deps.vault.get(owned.value.id);
    await this.deps.vault.delete(owned.value.id);
    const removed = await this.deps.inboxes.delete(accountId, owned.value.id);
    if (removed) await this.deps.onRemoved?.(accountId, owned.value.id);
    if (credential !== undefined) await this.deps.onCredentialDropped?.(owned.value.id, credential);
    return removed;
  }

  /**
   * Marks the inbox as needing a new credential, with a short reason for the person — unless the credential was
   * replaced after `since`, when the refused one was read: an operation that began before the person connected
   * again must not undo their reconnection when it fails with the old credential.
   */
  async markNeedsReconnect(inbox: Inbox, reason: string, since: Date): Promise<void> {
    await this.deps.inboxes.markNeedsReconnect(
      inbox.accountId,
      inbox.id,
      reason.slice(0, 200),
      since,
      this.deps.clock.now(),
    );
  }

  async recordError(inbox: Inbox, reason: string | null): Promise<void> {
    await this.deps.inboxes.update(
      inbox.accountId,
      inbox.id,
      { lastError: reason === null ? null : reason.slice(0, 200) },
      this.deps.clock.now(),
    );
  }

  /** Whether the operator has configured this provider's sign-in (its OAuth client). */
  canSignIn(provider: SignInProvider): boolean {
    return this.signInOrigin(provider) !== undefined;
  }

  /** Where a provider's sign-in takes the person's browser; undefined when the operator has not configured it. */
  signInOrigin(provider: SignInProvider): string | undefined {
    return (provider === 'google' ? this.deps.google : this.deps.microsoft)?.origin;
  }

  /**
   * The provider behind an address (contract §4.5): by its domain when the domain is a provider's own, else by where
   * the domain's mail goes (its MX records: a custom domain on Google Workspace or Microsoft 365 is connected by their
   * sign-in, not over IMAP), else IMAP at the conventional host for the person to confirm.
   */
  async guess(email: string): Promise<ProviderGuess | undefined> {
    const normalised = normaliseEmail(email);
    if (normalised === undefined) return undefined;
    const byDomain = detectProvider(normalised);
    if (byDomain.provider !== 'imap') return byDomain;
    const domain = domainKey(normalised.slice(normalised.lastIndexOf('@') + 1));
    const byMail =
      domain.includes('.') && isValidHostname(domain) && !/^[\d.]+$/.test(domain)
        ? providerFromMailExchanges(await this.deps.mailExchanges.exchangesOf(domain))
        : undefined;
    return byMail ?? byDomain;
  }
}

const notFound = () =>
  inboxError('inbox_not_found', 'No inbox with this id on this account.', 'pick_listed_inbox');

/** Why an owned inbox cannot talk to its provider now, if it cannot: paused, or no working credential. */
/**
 * Whether a registered inbox is the mailbox about to be added: same provider and address, and for a mailbox reached
 * over IMAP the same server, port and login (one address can be two logins, or two servers). The demo is never one.
 */
function sameMailbox(
  existing: Inbox,
  candidate: Pick<Inbox, 'provider' | 'email' | 'imapHost' | 'imapPort' | 'imapUser'>,
): boolean {
  if (existing.isDemo || existing.provider !== candidate.provider || existing.email !== candidate.email)
    return false;
  if (candidate.provider !== 'imap' && candidate.provider !== 'icloud') return true;
  return (
    existing.imapHost === candidate.imapHost &&
    existing.imapPort === candidate.imapPort &&
    (existing.imapUser ?? existing.email) === (candidate.imapUser ?? candidate.email)
  );
}

function unusable(inbox: Inbox): InboxError | undefined {
  if (inbox.paused)
    return inboxError(
      'inbox_paused',
      'The person paused this inbox. They can resume it on the Inboxes page.',
    );
  if (inbox.isDemo) return undefined;
  if (inbox.connectionStatus === 'not_connected')
    return inboxError('not_connected', 'This inbox has no working credential yet.', 'connect_inbox');
  if (inbox.connectionStatus === 'needs_reconnect')
    return inboxError(
      'needs_reconnect',
      `The mailbox refused the stored credential${inbox.lastError === null ? '' : ` (${inbox.lastError})`}. The person must reconnect it.`,
      'connect_inbox',
    );
  return undefined;
}

const NO_SERVERS = { imapHost: null, imapPort: null, smtpHost: null, smtpPort: null } as const;
const ICLOUD_SERVERS: MailServers = {
  imapHost: ICLOUD_IMAP.host,
  imapPort: ICLOUD_IMAP.port,
  smtpHost: ICLOUD_SMTP.host,
  smtpPort: ICLOUD_SMTP.port,
};

/**
 * An IMAP inbox's servers, checked: each refusal names its field first (`imapHost …`), as the forms expect. A host
 * name beyond ASCII (`mail.müller.de`) is kept in its ASCII form (`mail.xn--mller-kva.de`), the one DNS and TLS
 * certificates name.
 */
function imapServers(input: ServersInput): Result<MailServers, InboxError> {
  const imapHost = domainKey(input.imapHost ?? '');
  if (imapHost === '') return err(inboxError('invalid_arguments', 'imapHost is required for provider imap.'));
  if (!isValidHostname(imapHost))
    return err(inboxError('invalid_arguments', 'imapHost must be a host name such as imap.example.com.'));
  const imapPort = input.imapPort ?? 993;
  if (!validPort(imapPort))
    return err(inboxError('invalid_arguments', 'imapPort must be between 1 and 65535.'));
  const smtpHost = domainKey(input.smtpHost ?? '') || defaultSmtpHost(imapHost);
  if (!isValidHostname(smtpHost))
    return err(inboxError('invalid_arguments', 'smtpHost must be a host name such as smtp.example.com.'));
  const smtpPort = input.smtpPort ?? 587;
  if (!validPort(smtpPort))
    return err(inboxError('invalid_arguments', 'smtpPort must be between 1 and 65535.'));
  return ok({ imapHost, imapPort, smtpHost, smtpPort });
}

const validPort = (port: number) => Number.isInteger(port) && port >= 1 && port <= 65535;
