import { createHash } from 'node:crypto';
import type { PrometheusMetrics } from '../adapters/metrics/prometheus-metrics.ts';
import type { Config, Secrets } from '../config/index.ts';
import { argon2PasswordHasher } from '../adapters/crypto/argon2-password-hasher.ts';
import { metadataDocumentFetcher } from '../adapters/http/metadata-document-fetcher.ts';
import { InProcessQueue } from '../adapters/jobs/in-process-queue.ts';
import { PgBossQueue } from '../adapters/jobs/pg-boss-queue.ts';
import { PgInboxClaims } from '../adapters/jobs/pg-inbox-claims.ts';
import { soleNode } from '../core/jobs/inbox-claims.ts';
import { createDemoInbox } from '../adapters/mail/demo/create-demo-inbox.ts';
import { ImapConnector } from '../adapters/mail/imap/imap-connector.ts';
import { mailComposer } from '../adapters/mail/mime/compose-message.ts';
import { ProviderSessionFactory } from '../adapters/mail/session-factory.ts';
import { SmtpSubmitter } from '../adapters/mail/smtp/smtp-submitter.ts';
import { mailauthDkimVerifier } from '../adapters/mail/dkim/mailauth-dkim-verifier.ts';
import { demoPoster } from '../adapters/mail/demo/demo-poster.ts';
import { oneClickPoster } from '../adapters/http/one-click-poster.ts';
import { ProviderSubmitter } from '../adapters/mail/submitter.ts';
import { googleProfile, microsoftProfile, ProviderOAuth } from '../adapters/sign-in/provider-oauth.ts';
import type { CredentialVault } from '../core/inboxes/credential-vault.ts';
import { GmailConnector } from '../adapters/mail/gmail/gmail-connector.ts';
import { CALLBACK_PATH } from '../transports/web/callback-paths.ts';
import { GraphConnector } from '../adapters/mail/graph/graph-connector.ts';
import { chunkedBudgets } from '../adapters/rate-limits/chunked-budgets.ts';
import { tableRateLimiter } from '../adapters/rate-limits/table-rate-limiter.ts';
import { DatabaseClock } from '../adapters/storage/database-clock.ts';
import type { Db, Stores } from '../adapters/storage/index.ts';
import { KyselyCredentialVault } from '../adapters/storage/kysely-credential-vault.ts';
import { KyselySecretLinkStore } from '../adapters/storage/kysely-secret-link-store.ts';
import { AccountService } from '../core/accounts/account-service.ts';
import { agentAccess } from '../core/accounts/plan.ts';
import { ApiKeyService } from '../core/api-keys/api-key-service.ts';
import { ActionService } from '../core/actions/action-service.ts';
import { UndoService } from '../core/actions/undo-service.ts';
import { DraftCardService } from '../core/drafts/draft-cards.ts';
import { DraftService } from '../core/drafts/draft-service.ts';
import { InboxService } from '../core/inboxes/inbox-service.ts';
import { allows } from '../core/auth/agent-powers.ts';
import type { Allowed } from '../core/auth/allowed.ts';
import { reaches } from '../core/auth/inbox-reach.ts';
import type { CredentialStillWorks } from '../core/auth/principal.ts';
import { LeaseService } from '../core/leases/lease-service.ts';
import { ProfileService } from '../core/profile/profile-service.ts';
import { SendService } from '../core/sending/send-service.ts';
import { VipService } from '../core/vips/vip-service.ts';
import { UnsubscribeService } from '../core/unsubscribe/unsubscribe-service.ts';
import { ScreeningService } from '../core/screening/screening-service.ts';
import { ActivityService } from '../core/audit/activity-service.ts';
import { InboxStatusService } from '../core/sync/inbox-status.ts';
import type { JobQueue } from '../core/jobs/job-queue.ts';
import { AttachmentLinks } from '../core/reading/attachment-links.ts';
import { ReadService } from '../core/reading/read-service.ts';
import { agentRequestRule, type RateLimiter } from '../core/rate-limits/rate-limiter.ts';
import { SessionService } from '../core/sessions/session-service.ts';
import { SecondFactorService } from '../core/sessions/second-factor-service.ts';
import { SIGN_IN_HISTORY_DAYS } from '../core/sessions/sign-in-history.ts';
import { PasskeyService, relyingParty } from '../core/sessions/passkey-service.ts';
import { webAuthnCeremonies } from '../adapters/crypto/webauthn-ceremonies.ts';
import { KyselySecondFactorStore } from '../adapters/storage/kysely-second-factor-store.ts';
import { RefusalMarkingSessions } from '../core/mail/refusal-marking-sessions.ts';
import { SyncService } from '../core/sync/sync-service.ts';
import { SyncScheduler } from '../jobs/sync-scheduler.ts';
import { credentialSealer } from './key-check.ts';
import type { Clock } from '../lib/clock.ts';
import { KeyedMutex } from '../lib/keyed-mutex.ts';
import { PgAdvisorySerializer } from '../adapters/storage/pg-advisory-serializer.ts';
import { lockSessions } from './database-connections.ts';
import type { Logger } from '../lib/logger.ts';
import { SCOPE_MCP_TOOLS } from '../oauth/oauth-config.ts';
import { OAuthProvider } from '../oauth/oauth-provider.ts';
import type { ToolServices } from '../transports/mcp/tool-services.ts';
import type { AppOverrides } from './overrides.ts';
import { DnsMailExchanges } from '../adapters/net/dns-mail-exchanges.ts';

export interface Services {
  readonly accounts: AccountService;
  readonly sessions: SessionService;
  readonly secondFactor: SecondFactorService;
  readonly passkeys: PasskeyService;
  readonly apiKeys: ApiKeyService;
  readonly limiter: RateLimiter;
  readonly oauth: OAuthProvider;
  readonly attachments: AttachmentLinks;
  readonly scheduler: SyncScheduler;
  readonly queue: JobQueue;
  readonly tools: ToolServices;
  readonly sending: SendService;
  readonly activity: ActivityService;
  readonly inboxStatus: InboxStatusService;
  /** Ends what the services hold beyond the database (the PostgreSQL lock sessions). */
  release(): Promise<void>;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** How long OAuth codes, tokens and sign-ins are kept once expired or revoked (decision 0065). */
const SPENT_SIGN_INS_KEPT_MS = 30 * DAY_MS;
/** A client registration nothing names any more — never used to sign in, or its sign-ins gone (decision 0122). */
const UNUSED_CLIENTS_KEPT_MS = DAY_MS;
/** Capability links and card codes once expired: a late click is told "expired" rather than "unknown" (decision 0123). */
const EXPIRED_LINKS_KEPT_MS = DAY_MS;
/**
 * Drafts once sent or discarded, and approvals once their time is over: as long as undo handles, well past the
 * 24 hours an approval lives, so a late call is told what became of it (decision 0123).
 */
const FINISHED_APPROVALS_KEPT_MS = 7 * DAY_MS;
/** An open draft nobody sent or changed for this long is forgotten; its mailbox copy stays (decision 0123). */
const UNTOUCHED_DRAFTS_KEPT_MS = 30 * DAY_MS;
/** How long a screening verdict outlives its message in the index (decision 0065). */
const FORGOTTEN_SCREENINGS_KEPT_MS = 30 * DAY_MS;

/** Builds every core service on its adapters. Part of the composition root (see app.ts). */
export function buildServices(c: {
  config: Config;
  secrets: Secrets;
  stores: Stores;
  db: Db;
  clock: Clock;
  log: Logger;
  overrides: AppOverrides;
  metrics: PrometheusMetrics;
}): Services {
  const { config, secrets, stores, db, clock, log, overrides: o, metrics } = c;
  // In the database on either engine (decision 0147); request budgets are taken in chunks: one statement per chunk,
  // not per request (decision 0024), held and refused by the store's own clock (0150).
  const limiter = o.limiter ?? chunkedBudgets(tableRateLimiter(db, clock), () => clock.now().getTime());
  const hasher = o.hasher ?? argon2PasswordHasher();
  const failures = config.rateLimits.signinFailures;

  const vault = new KyselyCredentialVault(db, credentialSealer(secrets.encryptionKey));
  const secondFactor = new SecondFactorService({
    factors: new KyselySecondFactorStore(db, credentialSealer(secrets.encryptionKey)),
    limiter,
    clock,
    failures: { name: 'signin-second-factor', points: failures, windowSeconds: 15 * 60 },
    history: stores.signInHistory,
  });
  const links = new KyselySecretLinkStore(db);
  const imap =
    o.imapConnector ??
    new ImapConnector({
      insecureHosts: config.imapInsecureHosts,
      pooledIdleMs: config.imapReuseSeconds * 1000,
      logger: log,
    });
  const smtp = new SmtpSubmitter({ vault, insecureHosts: config.imapInsecureHosts, logger: log, ...o.smtp });
  const google = googleMail(config, secrets);
  const microsoft = microsoftMail(config, secrets, vault);
  // Every session the services open marks its inbox for reconnecting when the provider refuses the credential.
  const sessions = new RefusalMarkingSessions(
    new ProviderSessionFactory({ db, vault, imap, gmail: google?.connector, graph: microsoft?.connector }),
    { clock, mark: (inbox, reason, since) => inboxes.markNeedsReconnect(inbox, reason, since) },
  );
  // What several instances on one PostgreSQL share beyond the pool (decision 0024): a queue, locks, inbox claims.
  const queue: JobQueue =
    db.dialect === 'sqlite' ? new InProcessQueue(log) : new PgBossQueue({ connectionString: db.url, log });
  const profiles = new ProfileService({ settings: stores.settings, clock });
  const inboxes = new InboxService({
    inboxes: stores.inboxes,
    vault,
    links,
    imap,
    submission: smtp,
    clock,
    baseUrl: config.baseUrl,
    maxInboxesPerAccount: 20,
    // The scheduler is built below from services that need this one; it exists by the time anyone connects.
    onConnected: (inbox) => {
      scheduler.connected(inbox);
    },
    google: google?.oauth,
    microsoft: microsoft?.oauth,
    mailExchanges: o.mailExchanges ?? new DnsMailExchanges(),
    // The triage profile's override for the inbox goes with it (decision 0117), and its counts of drafts (0126) and
    // new labels (0146) today: nothing that names an inbox outlives it.
    onRemoved: async (accountId, inboxId) => {
      await profiles.forgetInbox(accountId, inboxId);
      await drafts.forgetInbox(inboxId);
      await actions.forgetInbox(inboxId);
    },
    onCredentialDropped: async (inboxId, credential) => {
      microsoft?.connector.forget(inboxId);
      await google?.connector.revoke(inboxId, credential).catch((e: unknown) => {
        log.warn({ err: e instanceof Error ? e.message : 'unknown' }, 'revoking a Google sign-in failed');
      });
    },
  });
  // Actions and undos on one inbox, one at a time: in this process on SQLite, across all nodes on PostgreSQL.
  const serial =
    db.dialect === 'sqlite'
      ? new KeyedMutex()
      : // One lock session per inbox changed at once; each change also needs one of the main pool's connections.
        new PgAdvisorySerializer(db.url, { deadlineMs: db.deadlineMs, size: lockSessions(db.poolSize) });
  const read = new ReadService({
    folders: stores.folders,
    messages: stores.messages,
    sessions,
    links,
    clock,
    baseUrl: config.baseUrl,
    maxBodyChars: 50_000,
    serial,
    changes: stores.changeCounts,
  });
  // Whether an agent's credential still works (a download link's, decision 0120; a lease's, 0130): a key not revoked,
  // a sign-in not disconnected, the account's agents still allowed, and what it is asked for still allowed it (0141),
  // in the inbox it is for (0142).
  const credentialStillWorks: CredentialStillWorks = async (
    accountId,
    credential,
    needs = 'read',
    inboxId,
  ) => {
    const account = await stores.accounts.get(accountId);
    if (account === undefined || !agentAccess(account, clock.now()).allowed) return false;
    const holds = (a: Allowed) =>
      allows(a.powers, needs) && (inboxId === undefined || reaches(a.inboxes, inboxId));
    if (credential.kind === 'api_key')
      return (await stores.apiKeys.list(accountId)).some(
        (k) => k.id === credential.id && k.revokedAt === null && holds(k),
      );
    if (credential.kind === 'access_token')
      return (await stores.grants.listGrants(accountId)).some((g) => g.id === credential.id && holds(g));
    return false;
  };
  const leases = new LeaseService({
    leases: stores.leases,
    profiles,
    clock,
    stillWorks: credentialStillWorks,
  });
  const vips = new VipService({ vips: stores.vips, profiles, clock });
  const mailWork = {
    inboxes,
    messages: stores.messages,
    sessions,
    leases,
    undo: stores.undo,
    clock,
    serial,
    changes: stores.changeCounts,
  };
  const actions = new ActionService({
    ...mailWork,
    vips,
    folders: stores.folders,
    limiter,
    newLabelsPerDay: config.rateLimits.newLabelsPerInboxPerDay,
  });
  const undo = new UndoService(mailWork);
  const screening = new ScreeningService({
    store: stores.screenings,
    messages: stores.messages,
    folders: stores.folders,
    sessions,
    inboxes,
    vips,
    profiles,
    actions,
    clock,
    log,
  });
  const sync = new SyncService({
    folders: stores.folders,
    messages: stores.messages,
    sessions,
    serial,
    changes: stores.changeCounts,
    clock,
    log,
    windowSize: config.syncWindow,
    onSynced: (inbox, error) => inboxes.recordError(inbox, error),
    onInboxFolderReset: (inbox) => {
      scheduler.rewatch(inbox);
    },
    arrivals: screening,
    metrics,
  });

  const drafts = new DraftService({
    inboxes,
    folders: stores.folders,
    messages: stores.messages,
    sessions,
    drafts: stores.drafts,
    composer: mailComposer,
    clock,
    limiter,
    draftsPerDay: config.rateLimits.draftsPerInboxPerDay,
  });
  const submitter = new ProviderSubmitter(
    smtp,
    google === undefined ? undefined : { connector: google.connector, vault },
    microsoft === undefined ? undefined : { connector: microsoft.connector, vault },
  );
  const sending = new SendService({
    drafts: stores.drafts,
    pendingSends: stores.pendingSends,
    inboxes,
    folders: stores.folders,
    messages: stores.messages,
    sessions,
    submitter,
    composer: mailComposer,
    settings: stores.settings,
    profiles,
    clock,
    log,
  });
  const cards = new DraftCardService({
    codes: stores.cardCodes,
    drafts,
    sending,
    inboxes,
    clock,
  });
  const unsubscribe = new UnsubscribeService({
    serial,
    pending: stores.pendingUnsubscribes,
    lists: stores.mailingLists,
    messages: stores.messages,
    folders: stores.folders,
    sessions,
    inboxes,
    vips,
    profiles,
    dkim: mailauthDkimVerifier(o.dkimResolver === undefined ? {} : { resolver: o.dkimResolver }),
    posters: {
      real: oneClickPoster({
        allowPrivateHosts: config.unsubscribeAllowedHosts,
        ...(o.unsubscribeLookup !== undefined && { lookup: o.unsubscribeLookup }),
        ...(o.unsubscribeCa !== undefined && { ca: o.unsubscribeCa }),
      }),
      demo: demoPoster,
    },
    clock,
    log,
  });
  metrics.watch({
    inboxStates: () => stores.inboxes.countByState(),
    queueDepth: () => queue.depth(),
    imapConnections: () => (imap instanceof ImapConnector ? imap.openConnections() : 0),
    clockOffsetMs: () => (clock instanceof DatabaseClock ? (clock.reading()?.offsetMs ?? 0) : 0),
  });
  const scheduler = new SyncScheduler({
    queue,
    sync,
    sessions,
    syncable: () => stores.inboxes.listSyncable(clock.now()),
    syncableInbox: (id) => stores.inboxes.syncable(id, clock.now()),
    claims: db.dialect === 'sqlite' ? soleNode : new PgInboxClaims(db.url),
    intervalMs: config.syncIntervalSeconds * 1000,
    log,
  });
  scheduler.register();
  // What a process that died left half-done (decisions 0028, 0031): sends and unsubscribe requests cut mid-request
  // become `unknown` (never made again on their own); a draft's mailbox copy left half-written is finished.
  queue.handle('sweep-unfinished', async () => {
    const sends = await sending.recoverStranded();
    const requests = await unsubscribe.recoverStranded();
    const copies = await drafts.recoverUnfinished();
    if (sends + requests + copies > 0)
      log.info(
        { sends, unsubscribes: requests, drafts: copies },
        'finished work a stopped process left half-done',
      );
  });
  // What has expired, removed in the background rather than by the requests that write it (decision 0065): undo
  // handles past their 7 days, browser sessions past their end, OAuth codes, tokens and sign-ins 30 days after they
  // were spent (a rotated refresh token presented in that time still reveals a stolen copy), and on PostgreSQL the
  // request counters of windows that ended an hour ago (the margin covers clocks a little apart between nodes); junk
  // screening's rows of messages the index no longer holds, 30 days after their last event (past undo's 7 days, so a
  // restored message keeps its verdict); the activity log's rows older than ACTIVITY_DAYS (decision 0068); and the
  // sign-in history's after 90 days (decision 0091); the settings of deleted accounts and invitations that ended
  // unused (decision 0117); what strangers can make without signing in — authorization requests once they end, and
  // client registrations a day after anything last named them (decision 0122); and what agents' work leaves once it
  // is done — drafts sent or discarded and approvals ended a week ago, open drafts untouched for 30 days (their mailbox
  // copies stay), each sender's last unsubscribe result kept, capability links and card codes a day after they
  // expired (decision 0123).
  queue.handle('sweep-expired', async () => {
    const now = clock.now();
    await stores.undo.deleteExpired(now);
    const sessions = await stores.sessions.deleteExpired(now);
    const oauth = await stores.grants.deleteSpent(new Date(now.getTime() - SPENT_SIGN_INS_KEPT_MS));
    // After the sign-ins and the requests: a client goes once nothing names it.
    const authorizationRequests = await stores.oauthRequests.deleteExpired(now);
    const oauthClients = await stores.oauthClients.deleteUnused(
      new Date(now.getTime() - UNUSED_CLIENTS_KEPT_MS),
    );
    const counters = await limiter.deleteExpired(new Date(now.getTime() - 60 * MINUTE_MS));
    const screenings = await stores.screenings.deleteForgotten(
      new Date(now.getTime() - FORGOTTEN_SCREENINGS_KEPT_MS),
    );
    const activityBefore =
      config.activityDays === 0 ? undefined : new Date(now.getTime() - config.activityDays * DAY_MS);
    const activity = activityBefore === undefined ? 0 : await stores.audit.deleteBefore(activityBefore);
    // Triage passes are agents' activity too: kept as long, each inbox's last for good (decision 0121).
    const passes = activityBefore === undefined ? 0 : await stores.leases.deletePassesBefore(activityBefore);
    const signIns = await stores.signInHistory.deleteBefore(
      new Date(now.getTime() - SIGN_IN_HISTORY_DAYS * DAY_MS),
    );
    await stores.passkeys.deleteSpentChallenges(now);
    const finishedBefore = new Date(now.getTime() - FINISHED_APPROVALS_KEPT_MS);
    const finished = {
      drafts: await stores.drafts.deleteFinished(
        finishedBefore,
        new Date(now.getTime() - UNTOUCHED_DRAFTS_KEPT_MS),
      ),
      sends: await stores.pendingSends.deleteEnded(finishedBefore),
      unsubscribes: await stores.pendingUnsubscribes.deleteEnded(finishedBefore),
    };
    const expiredBefore = new Date(now.getTime() - EXPIRED_LINKS_KEPT_MS);
    const expired = {
      links: await links.deleteExpired(expiredBefore),
      cardCodes: await stores.cardCodes.deleteExpired(expiredBefore),
    };
    const settings = await stores.settings.deleteAccountless();
    const invitations = await stores.invitations.deleteExpired(now);
    const removed = {
      sessions,
      oauth,
      authorizationRequests,
      oauthClients,
      rateCounters: counters,
      screenings,
      activity,
      signIns,
      accountlessSettings: settings,
      invitations,
      triagePasses: passes,
      finished,
      expired,
    };
    const counts = Object.values(removed).flatMap((n): number[] =>
      typeof n === 'number' ? [n] : Object.values({ ...n }),
    );
    if (counts.some((n) => n > 0)) log.info(removed, 'removed what has expired');
  });

  /** A key of its own for one purpose, derived from the encryption key: the same on every node and across restarts. */
  const subkey = (purpose: string) =>
    createHash('sha256').update(secrets.encryptionKey).update(purpose).digest();
  const passkeys = new PasskeyService({
    passkeys: stores.passkeys,
    ceremonies: webAuthnCeremonies,
    clock,
    history: stores.signInHistory,
    key: subkey('inbox-triage passkey challenges'),
    rp: relyingParty(config.baseUrl),
  });
  const oauth = new OAuthProvider({
    config: {
      issuer: config.baseUrl,
      resource: `${config.baseUrl}/mcp`,
      scopes: [SCOPE_MCP_TOOLS],
      redirectAllowlist: config.oauthRedirectAllowlist,
      accessTokenTtlMs: 60 * MINUTE_MS,
      refreshTokenTtlMs: 30 * DAY_MS,
      codeTtlMs: MINUTE_MS,
      requestTtlMs: 10 * MINUTE_MS,
    },
    clock,
    accounts: stores.accounts,
    clientStore: stores.oauthClients,
    requestStore: stores.oauthRequests,
    grantStore: stores.grants,
    fetcher: o.clientMetadataFetcher ?? metadataDocumentFetcher(),
    // Decision 0041.
    rotationKey: subkey('inbox-triage oauth refresh rotation'),
    history: stores.signInHistory,
  });

  return {
    limiter,
    oauth,
    queue,
    scheduler,
    attachments: new AttachmentLinks({
      links,
      inboxes: stores.inboxes,
      read,
      clock,
      limiter,
      budget: agentRequestRule('mcp', config.rateLimits.mcpPerMinute),
      // The credential a download link was issued to (decision 0120): a key not revoked, a sign-in not disconnected,
      // and the account's agents still allowed.
      stillWorks: credentialStillWorks,
    }),
    accounts: new AccountService({
      accounts: stores.accounts,
      invitations: stores.invitations,
      settings: stores.settings,
      hasher,
      clock,
      policy: {
        trialDays: config.trialDays,
        openSignup: config.openSignup,
        setupLinkTtlMs: 60 * MINUTE_MS,
        invitationTtlMs: 7 * DAY_MS,
      },
      onAccountCreated: async (account) => {
        await createDemoInbox(db, stores.inboxes, account, clock.now());
      },
      // As the person removes one: the sign-in revoked at Google, the draft counter forgotten (decisions 0126, 0139).
      removeInboxes: async (accountId) => {
        for (const inbox of await stores.inboxes.list(accountId)) await inboxes.remove(accountId, inbox.id);
      },
    }),
    secondFactor,
    passkeys,
    sessions: new SessionService({
      secondFactor,
      passkeys,
      history: stores.signInHistory,
      accounts: stores.accounts,
      sessions: stores.sessions,
      hasher,
      limiter,
      clock,
      policy: {
        ttlMs: config.sessionDays * DAY_MS,
        failuresPerAccount: { name: 'signin-account', points: failures, windowSeconds: 15 * 60 },
        failuresPerIp: { name: 'signin-ip', points: failures * 4, windowSeconds: 15 * 60 },
        failuresPerDevice: { name: 'signin-device', points: failures, windowSeconds: 15 * 60 },
      },
      // Device tokens stay valid across restarts and nodes.
      deviceKey: subkey('inbox-triage device tokens'),
      links,
    }),
    apiKeys: new ApiKeyService({
      keys: stores.apiKeys,
      accounts: stores.accounts,
      clock,
      history: stores.signInHistory,
    }),
    sending,
    inboxStatus: new InboxStatusService({ folders: stores.folders, messages: stores.messages }),
    activity: new ActivityService({ audit: stores.audit, undo: stores.undo, folders: stores.folders, clock }),
    release: async () => {
      if (imap instanceof ImapConnector) imap.close();
      if (serial instanceof PgAdvisorySerializer) await serial.close();
    },
    tools: {
      inboxes,
      sync,
      read,
      actions,
      undo,
      leases,
      vips,
      profiles,
      drafts,
      cards,
      sending,
      unsubscribe,
      screening,
    },
  };
}

/** Google sign-in and the Gmail adapter, when the operator configured an OAuth client. */
function googleMail(
  config: Config,
  secrets: Secrets,
): { oauth: ProviderOAuth; connector: GmailConnector } | undefined {
  const clientId = config.google.clientId;
  const clientSecret = secrets.googleClientSecret;
  if (clientId === null || clientSecret === undefined) return undefined;
  const oauth = new ProviderOAuth({
    profile: googleProfile(config.google.issuer),
    clientId,
    clientSecret,
    redirectUri: `${config.baseUrl}${CALLBACK_PATH.google}`,
  });
  return {
    oauth,
    connector: new GmailConnector({
      oauth,
      apiUrl: config.google.gmailApiUrl,
      pollMs: config.google.pollSeconds * 1000,
    }),
  };
}

/** Microsoft sign-in and the Graph adapter, when the operator registered an Entra app. */
function microsoftMail(
  config: Config,
  secrets: Secrets,
  vault: CredentialVault,
): { oauth: ProviderOAuth; connector: GraphConnector } | undefined {
  const m = config.microsoft;
  const clientSecret = secrets.microsoftClientSecret;
  if (m.clientId === null || clientSecret === undefined) return undefined;
  const oauth = new ProviderOAuth({
    profile: microsoftProfile(m.authority, m.tenant, m.graphApiUrl),
    clientId: m.clientId,
    clientSecret,
    redirectUri: `${config.baseUrl}${CALLBACK_PATH.microsoft}`,
  });
  return {
    oauth,
    connector: new GraphConnector({ oauth, vault, apiUrl: m.graphApiUrl, pollMs: m.pollSeconds * 1000 }),
  };
}
