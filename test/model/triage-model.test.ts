import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import type { AccountId } from '../../src/core/accounts/account.ts';
import type { UndoEntry } from '../../src/core/actions/undo-store.ts';
import type { InboxId } from '../../src/core/inboxes/inbox.ts';
import type { MessageId } from '../../src/core/messages/message.ts';
import type { fixedClock } from '../../src/lib/clock.ts';
import { buildMessage } from '../rig/index.ts';
import { toolCaller, type ToolResult } from '../support/tool-caller.ts';
import { createKeyViaPage, type WebClient } from '../support/web-client.ts';
import {
  demoBackend,
  demoTwoNodesBackend,
  dovecotBackend,
  FLAGGED,
  gmailBackend,
  graphBackend,
  OUTSIDE_DOMAIN,
  PLAIN_IMAP_SERVER,
  type Backend,
  type Folder,
  type MailboxRow,
  type Outside,
} from '../support/mail-backends.ts';

// A model-based test of the triage safety rules (issue 7) against the real app, in-process, over the real /mcp
// endpoint, twice: on the account's demo inbox, and on an IMAP inbox on Dovecot that sends through the SMTP sink and
// unsubscribes through a local https sink (issue 21, S1). Two agents (two API keys of one account) interleave random lease, change,
// undo, draft and send calls on a pool of messages, some from a VIP, with a fake clock that sometimes moves (leases
// lapse after 5 minutes, approvals after 24 hours); some steps are two calls at the same moment, one per agent.
// Before every call the model predicts what a correct server answers and how the mailbox looks afterwards; after
// it, the real state is read back (our index, the mailbox itself — the demo's rows or a direct IMAP listing — the SMTP
// sink, get_triage_activity, the stores) and
// compared, and the acceptance criteria are checked once more on their own, from the states before and after,
// independently of the predictions. One app per mailbox; its state carries over from run to run: each run
// rebuilds the model from the real state, so a shrunk counterexample starts wherever the previous run left off.
// Reproduce a failure with FC_SEED=<seed> FC_PATH=<path> from the report.

type Agent = 'A' | 'B';
type Action = 'trash' | 'spam' | 'archive' | 'star' | 'unstar' | 'label';
type OutsideOp = 'move' | 'seen' | 'flag' | 'delete' | 'deliver';

const MOVES: Partial<Record<Action, Folder>> = { trash: 'trash', spam: 'spam', archive: 'archive' };
const LEASE_MS = 5 * 60_000;
const UNDO_MS = 7 * 86_400_000;
const APPROVAL_MS = 24 * 3_600_000;
const MAX_WRONG_CODES = 5;

interface MsgState {
  folder: Folder;
  unread: boolean;
  starred: boolean;
  labels: string[];
}
interface EntryM {
  messageId: string;
  from: Folder;
  to: Folder | null;
  before: { unread: boolean; starred: boolean; labels: string[] };
  flags: { add: string[]; remove: string[] } | null;
}
interface UndoM {
  id: string;
  action: string;
  entries: EntryM[];
  expiresAt: number;
  used: boolean;
}
interface LeaseM {
  agent: Agent;
  label: string;
  startedAt: number;
  expiresAt: number;
}
interface SendM {
  id: string;
  to: string;
  status: string;
  attempts: number;
  expiresAt: number;
  draftStatus: string;
}
interface UnsubM {
  id: string;
  status: string;
  attempts: number;
  expiresAt: number;
}
/** Everything the rules are about, as the server must have it. */
interface World {
  now: number;
  msgs: Map<string, MsgState>;
  /** The lease row, live or lapsed (a lapsed one still matters to end_triage and to a takeover). */
  lease: LeaseM | null;
  sendEnabled: boolean;
  undos: UndoM[];
  sends: SendM[];
  /** Approvals to unsubscribe, and what became of them (the demo records the request instead of sending it). */
  unsubs: UnsubM[];
  /** Messages in the demo mailbox's Sent and Drafts folders. */
  sent: number;
  drafts: number;
  /** The profile's sending.requireInAppConfirmation: in the defaults, and the inbox's own (null: follows them). */
  inApp: { defaults: boolean; inbox: boolean | null };
  /** The profile's vip.people: the defaults', and the inbox's own list (null: follows them). */
  vipPeople: { defaults: string[]; inbox: string[] | null };
}

/** Approval in chat is refused for the inbox (decision 0102 keeps an agent from turning this off). */
const inAppOnly = (w: World) => w.inApp.inbox ?? w.inApp.defaults;

interface PoolMsg {
  id: string;
  name: string;
  from: string;
  vip: boolean;
  /** Its Message-ID, to say where the mailbox has it when the index lost it. */
  internetMessageId: string;
}

interface Env {
  app: App;
  clock: ReturnType<typeof fixedClock>;
  inboxId: string;
  /** The demo inbox (true) or an IMAP inbox on Dovecot, sending to the SMTP sink (false). */
  isDemo: boolean;
  /** The mailbox's own state, read past the service. */
  mailbox: () => Promise<MailboxRow[]>;
  /** Messages at the SMTP sink; undefined for the demo, which sends nowhere. */
  delivered: () => number | undefined;
  /** The mailbox's paths of its Sent and Drafts folders. */
  sentPath: string;
  draftsPath: string;
  /** Another mail client on the mailbox (none on the demo), and the Message-IDs of the mail it may change. */
  outside: Outside | undefined;
  outsiders: string[];
  /** Another client changed the mailbox since the last sync_inbox. */
  outsidePending: boolean;
  accountId: string;
  agents: Record<Agent, ReturnType<typeof toolCaller>>;
  /** The person, signed in to the console. */
  person: WebClient;
  /** Lease holder (credential key) → agent. */
  holders: Map<string, Agent>;
  folderOf: Map<string, Folder | 'other'>;
  pool: PoolMsg[];
  byId: Map<string, PoolMsg>;
  /** [VIP sender, another sender]; the pool holds every inbox message of both. */
  senders: [string, string];
  /** Learned from results, in order: undo ids, pending sends and their approval codes. */
  undoOrder: string[];
  codes: Map<string, string>;
  outcomes: Map<string, number>;
  /** The last steps run (descriptions), for a failure report. */
  recent: string[];
  /** Inbox messages outside the pool, for the race tests after the property (each used once). */
  spare: string[];
  /** Demo list mail with a DKIM-signed one-click link, to propose unsubscribing from. */
  lists: string[];
  /** Which of `lists` each approval to unsubscribe was proposed from: one waits per sender (decision 0128). */
  unsubSenders: Map<string, number>;
}

// ---------------------------------------------------------------------------------------------------------------
// Commands

/** A pool message (biased to VIP mail when `vip`), or a well-formed id of no message. */
type MsgRef = { pool: number; vip: boolean } | { forged: string };
type Ref =
  | { kind: 'latest' }
  /** The latest one already used (a sent approval, a used undo handle): a reuse. */
  | { kind: 'used' }
  | { kind: 'recent'; n: number }
  | { kind: 'any'; n: number }
  | { kind: 'forged'; id: string };
type Tri = boolean | undefined;

type Spec =
  | { t: 'begin'; agent: Agent; alt: boolean; force: Tri }
  | { t: 'heartbeat'; agent: Agent; alt: boolean }
  | { t: 'end'; agent: Agent; alt: boolean }
  | { t: 'single'; agent: Agent; tool: 'trash_message' | 'mark_as_spam'; msg: MsgRef; confirmed: Tri }
  | { t: 'act'; agent: Agent; action: Action; items: MsgRef[]; vipConfirmed: Tri; label: string }
  | { t: 'actSender'; agent: Agent; action: Action; sender: 0 | 1; vipConfirmed: Tri }
  | { t: 'undo'; agent: Agent; ref: Ref }
  | { t: 'setSend'; agent: Agent; enabled: boolean; confirm: Tri }
  | { t: 'draft'; agent: Agent; to: 0 | 1 }
  | {
      t: 'send';
      agent: Agent;
      ps: Ref;
      code: 'right' | 'forged' | 'other';
      approved: Tri;
      confirmTo: 'match' | 'mismatch' | 'absent';
      forgedCode: string;
    }
  | { t: 'propose'; agent: Agent; list: number }
  | {
      t: 'unsub';
      agent: Agent;
      pu: Ref;
      code: 'right' | 'forged' | 'other';
      approved: Tri;
      forgedCode: string;
    }
  /** An agent's profile patch of in-app confirmation, for every inbox or this one's own setting. */
  | { t: 'inApp'; agent: Agent; on: boolean; scope: 'defaults' | 'inbox' }
  /** An agent's profile patch that leaves the VIPs out of vip.people. */
  | { t: 'dropVip'; agent: Agent; scope: 'defaults' | 'inbox' }
  /** The person's own in-app confirmation switch on the console (every inbox). */
  | { t: 'person'; on: boolean }
  | { t: 'tick'; ms: number }
  | { t: 'sync'; agent: Agent }
  /** Another mail client changes a message no agent works on (or delivers one); the index catches up at the next sync. */
  | { t: 'outside'; op: OutsideOp; n: number; to: Folder; on: boolean }
  /** Two calls at the same time, by A and by B: the outcome must be that of one of the two orders. */
  | { t: 'pair'; a: Spec; b: Spec };

const RECIPIENTS = ['friend@example.org', 'alice@example.org, bob@example.org'] as const;
const CONFIRM_MATCH = ['FRIEND@example.org', 'Bob@Example.org,alice@example.org'] as const;

const labelOf = (agent: Agent, alt: boolean) => `agent-${agent}${alt ? '-2' : ''}`;
const opt = (key: string, v: Tri) => (v === undefined ? {} : { [key]: v });
const refText = (r: Ref) =>
  r.kind === 'forged' ? r.id : r.kind === 'latest' || r.kind === 'used' ? r.kind : `${r.kind}#${r.n}`;

function describeSpec(s: Spec, env: Env | undefined): string {
  const msg = (m: MsgRef) =>
    'forged' in m ? `forged:${m.forged}` : env === undefined ? `pool#${String(m.pool)}` : poolAt(env, m).name;
  const tri = (k: string, v: Tri) => (v === undefined ? '' : `, ${k}=${String(v)}`);
  switch (s.t) {
    case 'begin':
      return `${s.agent}.begin_triage(${labelOf(s.agent, s.alt)}${tri('force', s.force)})`;
    case 'heartbeat':
      return `${s.agent}.heartbeat_triage(${labelOf(s.agent, s.alt)})`;
    case 'end':
      return `${s.agent}.end_triage(${labelOf(s.agent, s.alt)})`;
    case 'single':
      return `${s.agent}.${s.tool}(${msg(s.msg)}${tri('confirmed', s.confirmed)})`;
    case 'act':
      return `${s.agent}.act_on_messages(${s.action}${s.action === 'label' ? `:${s.label}` : ''}, [${s.items.map(msg).join(' ')}]${tri('vipConfirmed', s.vipConfirmed)})`;
    case 'actSender':
      return `${s.agent}.act_on_messages(${s.action}, sender=${s.sender === 0 ? 'VIP' : 'other'}${tri('vipConfirmed', s.vipConfirmed)})`;
    case 'undo':
      return `${s.agent}.undo_action(${refText(s.ref)})`;
    case 'setSend':
      return `${s.agent}.set_send_enabled(${String(s.enabled)}${tri('humanConfirmedInChat', s.confirm)})`;
    case 'draft':
      return `${s.agent}.create_draft(to=${RECIPIENTS[s.to]})`;
    case 'send':
      return `${s.agent}.send_draft(${refText(s.ps)}, code=${s.code}${tri('humanApprovedInChat', s.approved)}, confirmTo=${s.confirmTo})`;
    case 'propose':
      return `${s.agent}.propose_unsubscribe(list#${String(s.list)})`;
    case 'unsub':
      return `${s.agent}.confirm_unsubscribe(${refText(s.pu)}, code=${s.code}${tri('humanApprovedInChat', s.approved)})`;
    case 'inApp':
      return `${s.agent}.update_triage_profile(${s.scope}.sending.requireInAppConfirmation=${String(s.on)})`;
    case 'dropVip':
      return `${s.agent}.update_triage_profile(${s.scope}.vip.people=[])`;
    case 'person':
      return `person: confirming in the app ${s.on ? 'on' : 'off'} (console)`;
    case 'tick':
      return `clock+${s.ms >= 3_600_000 ? `${String(s.ms / 3_600_000)}h` : `${String(s.ms / 60_000)}min`}`;
    case 'sync':
      return `${s.agent}.sync_inbox()`;
    case 'outside':
      return `outside.${s.op}(#${String(s.n)}${s.op === 'move' ? ` → ${s.to}` : s.op === 'seen' || s.op === 'flag' ? ` ${String(s.on)}` : ''})`;
    case 'pair':
      return `(${describeSpec(s.a, env)} ‖ ${describeSpec(s.b, env)})`;
  }
}

const poolAt = (env: Env, m: { pool: number; vip: boolean }): PoolMsg => {
  const list = m.vip ? env.pool.filter((p) => p.vip) : env.pool;
  return list[m.pool % list.length]!;
};

/** Commands run (a pair of simultaneous calls counts once), for the trials' tally. */
let stepsRun = 0;

class Step implements fc.AsyncCommand<World, Env> {
  readonly spec: Spec;
  /** What the abstract references meant in the last run (ids, codes), for the failure report. */
  resolved = '';
  private env: Env | undefined;
  constructor(spec: Spec) {
    this.spec = spec;
  }
  check(): boolean {
    return true;
  }
  async run(w: World, env: Env): Promise<void> {
    this.env = env;
    stepsRun++;
    await (this.spec.t === 'pair' ? pairStep(this, this.spec, w, env) : step(this, w, env));
    // The last steps, across runs: a failure found at the start of a run (the state carries over) says what led there.
    env.recent.push(this.toString());
    if (env.recent.length > 12) env.recent.shift();
  }
  toString(): string {
    return describeSpec(this.spec, this.env) + (this.resolved === '' ? '' : ` {${this.resolved}}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reading the real state

async function readWorld(env: Env): Promise<World> {
  const db = env.app.db.kysely;
  const now = env.clock.now().getTime();
  const rows = await env.mailbox();
  const provider = new Map(rows.map((r) => [`${r.path}#${r.ref}`, r.flags]));
  const heldAt = new Map(rows.map((r) => [`${r.path}#${r.ref}`, r.messageId]));
  const folders = await env.app.stores.folders.list(env.inboxId as InboxId);
  const pathOf = new Map(folders.map((f) => [f.id as string, f.path]));
  const msgs = new Map<string, MsgState>();
  for (const p of env.pool) {
    const s = await env.app.stores.messages.get(env.inboxId as InboxId, p.id as MessageId);
    if (s === undefined) {
      const where = rows.filter((r) => r.messageId === p.internetMessageId).map((r) => `${r.path}#${r.ref}`);
      throw new Error(
        `${p.name} (${p.id}) is gone from the index; the mailbox has it in ${where.join(', ') || 'no folder'}. ` +
          `The last steps:\n${env.recent.join('\n')}`,
      );
    }
    const folder = env.folderOf.get(s.folderId);
    if (folder === undefined || folder === 'other') throw new Error(`${p.name} is in an unexpected folder`);
    const state: MsgState = { folder, unread: s.unread, starred: s.starred, labels: [...s.labels].sort() };
    // The index must agree with the mailbox itself (the demo's rows, or Dovecot): same place, same flags.
    const flags = provider.get(`${pathOf.get(s.folderId) ?? '?'}#${s.providerRef}`);
    if (flags === undefined)
      throw new Error(
        `${p.name}: the index says ${folder} ${s.providerRef}, the mailbox has no such message`,
      );
    // … and that place holds this message, not another one: an action on a row pointing at another message's ref
    // changes the wrong mail (the demo's rows carry no Message-ID; its refs are checked by its own tests).
    const held = heldAt.get(`${pathOf.get(s.folderId) ?? '?'}#${s.providerRef}`);
    if (held !== undefined && held !== p.internetMessageId)
      throw new Error(
        `${p.name} (${p.internetMessageId}): the index says ${folder} ${s.providerRef}, where the mailbox holds ${held}. ` +
          `The last steps:\n${env.recent.join('\n')}`,
      );
    expect(
      {
        folder,
        unread: !flags.includes('\\Seen'),
        starred: flags.includes(FLAGGED),
        labels: flags.filter((f) => !f.startsWith('\\')).sort(),
      },
      `${p.name}: index and mailbox disagree`,
    ).toEqual(state);
    msgs.set(p.id, state);
  }
  // The list mail the model proposes unsubscribing from: each message stays indexed under its id where the mailbox
  // holds it (the seed-204662483 failure on Dovecot: one was message_not_found). Some are also in the pool (people
  // and lists who wrote once), checked above; the others are never moved.
  for (const [i, id] of env.lists.entries()) {
    if (env.byId.has(id)) continue;
    const s = await env.app.stores.messages.get(env.inboxId as InboxId, id as MessageId);
    const at = s === undefined ? 'no row' : `${pathOf.get(s.folderId) ?? '?'}#${s.providerRef}`;
    const held = heldAt.get(at);
    if (s === undefined || !provider.has(at) || (held !== undefined && held !== s.internetMessageId))
      throw new Error(
        `list message ${String(i)} (${id}): the index has it at ${at}, where the mailbox holds ${held ?? 'nothing'}.\n` +
          `The last steps:\n${env.recent.join('\n')}`,
      );
  }
  // The inbox folder holds as many rows in the index as in the mailbox (a sync after moves and undos adds no copies)
  // — unless another client changed it since the last sync_inbox, which the index learns at the next sync.
  if (!env.outsidePending) {
    const inboxFolder = folders.find((f) => f.canonical === 'inbox')!;
    const indexed = await env.app.stores.messages.list(env.inboxId as InboxId, {
      folderId: inboxFolder.id,
      limit: 1,
      offset: 0,
    });
    expect(indexed.total, 'index vs mailbox: messages in the inbox folder').toBe(
      rows.filter((r) => r.path === inboxFolder.path).length,
    );
  }

  const leaseRow = await db
    .selectFrom('leases')
    .selectAll()
    .where('inbox_id', '=', env.inboxId)
    .executeTakeFirst();
  let lease: LeaseM | null = null;
  if (leaseRow !== undefined) {
    const agent = env.holders.get(leaseRow.holder);
    if (agent === undefined) throw new Error(`lease held by an unknown credential ${leaseRow.holder}`);
    lease = {
      agent,
      label: leaseRow.agent_label,
      startedAt: leaseRow.started_at,
      expiresAt: leaseRow.expires_at,
    };
  }
  // get_triage_activity shows exactly the live lease: one holder at most.
  const activity = await env.agents.A('get_triage_activity', { inboxId: env.inboxId });
  const shown = (
    activity.body['inboxes'] as {
      lease: { agentLabel: string; startedAt: string; expiresAt: string } | null;
    }[]
  )[0]!.lease;
  const liveLease = lease !== null && lease.expiresAt > now ? lease : null;
  expect(shown, 'get_triage_activity vs the lease').toEqual(
    liveLease === null
      ? null
      : {
          agentLabel: liveLease.label,
          startedAt: new Date(liveLease.startedAt).toISOString(),
          expiresAt: new Date(liveLease.expiresAt).toISOString(),
        },
  );

  const undoRows = await db
    .selectFrom('undo_records')
    .selectAll()
    .where('account_id', '=', env.accountId)
    .execute();
  const rank = (id: string) => {
    const i = env.undoOrder.indexOf(id);
    if (i < 0) throw new Error(`undo record ${id} was never returned by a tool`);
    return i;
  };
  const folderName = (id: string): Folder => {
    const f = env.folderOf.get(id);
    if (f === undefined || f === 'other') throw new Error(`undo entry names folder ${id}`);
    return f;
  };
  const undos = undoRows
    .map((r): UndoM => ({
      id: r.id,
      action: r.action,
      expiresAt: r.expires_at,
      used: r.used_at !== null,
      entries: sortEntries(
        (JSON.parse(r.entries_json) as UndoEntry[]).map((e) => ({
          messageId: e.messageId,
          from: folderName(e.fromFolderId),
          to: e.toFolderId === null ? null : folderName(e.toFolderId),
          before: { unread: e.before.unread, starred: e.before.starred, labels: [...e.before.labels].sort() },
          flags: e.flags === undefined ? null : { add: [...e.flags.add], remove: [...e.flags.remove] },
        })),
      ),
    }))
    .sort((a, b) => rank(a.id) - rank(b.id));

  const psRows = await db
    .selectFrom('pending_sends')
    .innerJoin('drafts', 'drafts.id', 'pending_sends.draft_id')
    .select([
      'pending_sends.id as id',
      'pending_sends.status as status',
      'pending_sends.attempts as attempts',
      'pending_sends.expires_at as expiresAt',
      'drafts.to_text as to',
      'drafts.status as draftStatus',
    ])
    .where('pending_sends.account_id', '=', env.accountId)
    .execute();
  const order = [...env.codes.keys()];
  const sends = psRows
    .map((r): SendM => {
      if (!env.codes.has(r.id)) throw new Error(`pending send ${r.id} was never returned by create_draft`);
      return {
        id: r.id,
        to: r.to,
        status: r.status,
        attempts: r.attempts,
        expiresAt: r.expiresAt,
        draftStatus: r.draftStatus,
      };
    })
    .sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));

  const puRows = await db
    .selectFrom('pending_unsubscribes')
    .select(['id', 'status', 'attempts', 'expires_at'])
    .where('account_id', '=', env.accountId)
    .execute();
  const unsubs = puRows
    .map((r): UnsubM => {
      if (!env.codes.has(r.id))
        throw new Error(`pending unsubscribe ${r.id} was never returned by propose_unsubscribe`);
      return { id: r.id, status: r.status, attempts: r.attempts, expiresAt: r.expires_at };
    })
    .sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));

  // What left through SMTP is what the mailbox filed in Sent: nothing sent without landing there, nor twice.
  const sentCount = rows.filter((r) => r.path === env.sentPath).length;
  const delivered = env.delivered();
  if (delivered !== undefined) expect(delivered, 'messages at the SMTP sink vs Sent').toBe(sentCount);
  const profile = await env.app.services.tools.profiles.get(env.accountId as AccountId);
  const own = profile.inboxes[env.inboxId];
  return {
    now,
    msgs,
    lease,
    sendEnabled: await env.app.services.sending.isEnabled(env.accountId as AccountId),
    undos,
    sends,
    unsubs,
    sent: sentCount,
    drafts: rows.filter((r) => r.path === env.draftsPath).length,
    inApp: {
      defaults: profile.defaults.sending.requireInAppConfirmation,
      inbox: own?.sending?.requireInAppConfirmation ?? null,
    },
    vipPeople: {
      defaults: [...profile.defaults.vip.people],
      inbox: own?.vip?.people ? [...own.vip.people] : null,
    },
  };
}

const sortEntries = (es: EntryM[]) => es.sort((a, b) => a.messageId.localeCompare(b.messageId));

/** A readable form for comparisons: pool names instead of message ids. */
function view(w: World, env: Env) {
  const name = (id: string) => env.byId.get(id)?.name ?? id;
  return {
    now: new Date(w.now).toISOString(),
    msgs: Object.fromEntries(env.pool.map((p) => [p.name, w.msgs.get(p.id)])),
    lease: w.lease,
    sendEnabled: w.sendEnabled,
    undos: w.undos.map((u) => ({
      ...u,
      entries: u.entries.map((e) => ({ ...e, messageId: name(e.messageId) })),
    })),
    sends: w.sends,
    unsubs: w.unsubs,
    sent: w.sent,
    drafts: w.drafts,
    inApp: w.inApp,
    vipPeople: w.vipPeople,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The model: what a correct server answers, and the state it leaves

const live = (w: World) => (w.lease !== null && w.lease.expiresAt > w.now ? w.lease : null);

interface Plan {
  tool?: string;
  args?: Record<string, unknown>;
  /** The expected error code, or undefined for success. */
  error?: string;
  /** Checks a successful result and finishes the model update with what only the result knows (ids, codes). */
  ok?: (body: Record<string, unknown>) => void;
  /** Model updates that go with an expected error (a wrong code is counted). */
  onError?: () => void;
  resolved?: string;
  /** What the references resolved to, to replay the same call against another model state. */
  pin?: Pin;
}

/** The concrete ids and codes behind a command's abstract references. */
interface Pin {
  undoId?: string;
  psId?: string;
  code?: string;
  confirmTo?: string | undefined;
}

type ActTarget = { ids: string[] } | { sender: string };
type ActPrediction =
  | { error: string }
  | { changed: string[]; skipped: string[]; entries: EntryM[]; leaseHint: boolean; action: Action };

function predictAct(
  w: World,
  env: Env,
  agent: Agent,
  action: Action,
  target: ActTarget,
  vipConfirmed: boolean,
  label: string,
): ActPrediction {
  let found: string[] = [];
  const skipped: string[] = [];
  let bulk: boolean;
  if ('ids' in target) {
    for (const id of target.ids) {
      if (!w.msgs.has(id)) skipped.push(`${id}:not_found`);
      else if (!found.includes(id)) found.push(id);
    }
    if (target.ids.length === 1 && found.length === 0) return { error: 'message_not_found' };
    bulk = target.ids.length > 1;
  } else {
    found = env.pool
      .filter((p) => p.from === target.sender && w.msgs.get(p.id)?.folder === 'inbox')
      .map((p) => p.id);
    bulk = true;
  }
  const lease = live(w);
  if ((found.length > 0 || 'sender' in target) && lease !== null && lease.agent !== agent)
    return { error: 'lease_held' };
  const move = MOVES[action];
  let allowed = found;
  if (move !== undefined) {
    allowed = [];
    for (const id of found) {
      if (!env.byId.get(id)!.vip) allowed.push(id);
      else if (!bulk && vipConfirmed) allowed.push(id);
      else if (!bulk) return { error: 'vip_confirmation_required' };
      else skipped.push(`${id}:vip`);
    }
  }
  const changed: string[] = [];
  const entries: EntryM[] = [];
  for (const id of allowed) {
    const m = w.msgs.get(id)!;
    const before = { unread: m.unread, starred: m.starred, labels: [...m.labels] };
    if (move !== undefined) {
      if (m.folder === move) skipped.push(`${id}:already_there`);
      else {
        changed.push(id);
        entries.push({ messageId: id, from: m.folder, to: move, before, flags: null });
      }
    } else {
      changed.push(id);
      const flags =
        action === 'star'
          ? { add: [FLAGGED], remove: [] }
          : action === 'unstar'
            ? { add: [], remove: [FLAGGED] }
            : { add: [label], remove: [] };
      entries.push({ messageId: id, from: m.folder, to: null, before, flags });
    }
  }
  // The "take the lease" hint comes with a change checked against the lease: not when no message was found.
  const checked = found.length > 0 || 'sender' in target;
  return { changed, skipped, entries, leaseHint: checked && lease?.agent !== agent, action };
}

/** Applies a change to the model messages (a move or a flag change). */
function applyEntries(w: World, entries: readonly EntryM[]) {
  for (const e of entries) {
    const m = w.msgs.get(e.messageId)!;
    if (e.to !== null) m.folder = e.to;
    else {
      for (const f of e.flags?.add ?? []) {
        if (f === FLAGGED) m.starred = true;
        else if (!m.labels.includes(f)) m.labels = [...m.labels, f].sort();
      }
      for (const f of e.flags?.remove ?? []) {
        if (f === FLAGGED) m.starred = false;
        else m.labels = m.labels.filter((l) => l !== f);
      }
    }
  }
}

const sortedSkips = (body: Record<string, unknown>) =>
  (body['skipped'] as { messageId: string; reason: string }[])
    .map((s) => `${s.messageId}:${s.reason}`)
    .sort();
const ids = (list: unknown) => (list as { messageId: string }[]).map((x) => x.messageId).sort();

function planFromAct(w: World, p: ActPrediction, tool: string, args: Record<string, unknown>): Plan {
  if ('error' in p) return { tool, args, error: p.error };
  return {
    tool,
    args,
    ok: (body) => {
      expect(body['action']).toBe(p.action);
      expect(ids(body['changed']), 'changed').toEqual([...p.changed].sort());
      expect(sortedSkips(body), 'skipped').toEqual([...p.skipped].sort());
      const hint = (body['agentOnly'] as string[]).some((s) =>
        s.includes('You do not hold the triage lease'),
      );
      expect(hint, 'the lease hint iff the caller holds no lease').toBe(p.leaseHint);
      applyEntries(w, p.entries);
      if (p.changed.length === 0) {
        expect(body['undoId'], 'no change, no undo handle').toBeNull();
        return;
      }
      const undoId = body['undoId'];
      expect(typeof undoId).toBe('string');
      // Expired handles stay until the background sweep (not run here); an expired one cannot be used.
      w.undos.push({
        id: undoId as string,
        action: p.action,
        entries: sortEntries(p.entries),
        expiresAt: w.now + UNDO_MS,
        used: false,
      });
    },
  };
}

function pick<T>(list: readonly T[], ref: Ref, used: (x: T) => boolean): T | undefined {
  if (list.length === 0 || ref.kind === 'forged') return undefined;
  if (ref.kind === 'used') return list.filter(used).at(-1) ?? list.at(-1);
  if (ref.kind === 'latest') return list[list.length - 1];
  if (ref.kind === 'recent') return list[list.length - 1 - (ref.n % Math.min(list.length, 5))];
  return list[ref.n % list.length];
}

function plan(s: Spec, w: World, env: Env, pin?: Pin): Plan {
  const p = planCall(s, w, env, pin);
  const a = p.args ?? {};
  if (s.t === 'undo') p.pin = { undoId: a['undoId'] as string };
  if (s.t === 'send')
    p.pin = {
      psId: a['pendingSendId'] as string,
      code: a['approvalCode'] as string,
      confirmTo: a['confirmTo'] as string | undefined,
    };
  return p;
}

function planCall(s: Spec, w: World, env: Env, pin: Pin | undefined): Plan {
  const inboxId = env.inboxId;
  const msgId = (m: MsgRef) => ('forged' in m ? m.forged : poolAt(env, m).id);
  switch (s.t) {
    case 'begin':
    case 'heartbeat': {
      const label = labelOf(s.agent, s.alt);
      const row = w.lease;
      const l = live(w);
      const own = l !== null && l.agent === s.agent && l.label === label;
      const args = { inboxId, agentLabel: label, ...(s.t === 'begin' ? opt('force', s.force) : {}) };
      const tool = s.t === 'begin' ? 'begin_triage' : 'heartbeat_triage';
      // No cadence and no quiet hours are set, so only another live lease stops it (even one of the same key
      // under another label: one agent label at a time).
      if (l !== null && !own) return { tool, args, error: 'lease_held' };
      const next: LeaseM = {
        agent: s.agent,
        label,
        startedAt: own ? row!.startedAt : w.now,
        expiresAt: w.now + LEASE_MS,
      };
      return {
        tool,
        args,
        ok: (body) => {
          if (s.t === 'begin') expect(body).toMatchObject({ started: true, resumed: own });
          expect(body['lease']).toEqual({
            agentLabel: label,
            startedAt: new Date(next.startedAt).toISOString(),
            expiresAt: new Date(next.expiresAt).toISOString(),
          });
          w.lease = next;
        },
      };
    }
    case 'end': {
      const label = labelOf(s.agent, s.alt);
      // The row of this key and label, even lapsed, as long as nobody took it over.
      const mine = w.lease !== null && w.lease.agent === s.agent && w.lease.label === label;
      return {
        tool: 'end_triage',
        args: { inboxId, agentLabel: label, summary: 'model pass' },
        ok: (body) => {
          expect(body['ended']).toBe(mine);
          if (mine) w.lease = null;
        },
      };
    }
    case 'single': {
      const id = msgId(s.msg);
      const p = predictAct(
        w,
        env,
        s.agent,
        s.tool === 'trash_message' ? 'trash' : 'spam',
        { ids: [id] },
        s.confirmed === true,
        '',
      );
      return planFromAct(w, p, s.tool, { inboxId, messageId: id, ...opt('confirmed', s.confirmed) });
    }
    case 'act': {
      const items = s.items.map(msgId);
      const args = {
        action: s.action,
        items: items.map((messageId) => ({ inboxId, messageId })),
        ...(s.action === 'label' && { labelIds: [s.label] }),
        ...opt('vipConfirmed', s.vipConfirmed),
      };
      if (s.vipConfirmed === true && items.length !== 1)
        return { tool: 'act_on_messages', args, error: 'invalid_arguments' };
      return planFromAct(
        w,
        predictAct(w, env, s.agent, s.action, { ids: items }, s.vipConfirmed === true, s.label),
        'act_on_messages',
        args,
      );
    }
    case 'actSender': {
      const sender = env.senders[s.sender];
      const args = {
        action: s.action,
        sender: { inboxId, email: sender },
        ...(s.action === 'label' && { labelIds: ['model-sender'] }),
        ...opt('vipConfirmed', s.vipConfirmed),
      };
      if (s.vipConfirmed === true) return { tool: 'act_on_messages', args, error: 'invalid_arguments' };
      return planFromAct(
        w,
        predictAct(w, env, s.agent, s.action, { sender }, false, 'model-sender'),
        'act_on_messages',
        args,
      );
    }
    case 'undo': {
      const undoId =
        pin?.undoId ??
        pick(w.undos, s.ref, (u) => u.used)?.id ??
        (s.ref.kind === 'forged' ? s.ref.id : 'undo_00000000000000000000');
      const rec = w.undos.find((u) => u.id === undoId);
      const tool = 'undo_action';
      const args = { undoId };
      const resolved = rec === undefined ? `forged ${undoId}` : `${undoId}${rec.used ? ' (used)' : ''}`;
      if (rec === undefined || rec.used || rec.expiresAt <= w.now)
        return { tool, args, error: 'undo_unavailable', resolved };
      const l = live(w);
      if (l !== null && l.agent !== s.agent) return { tool, args, error: 'lease_held', resolved };
      const restored: string[] = [];
      const notRestored: string[] = [];
      const changes: EntryM[] = [];
      for (const e of rec.entries) {
        const m = w.msgs.get(e.messageId)!;
        if (e.to === null) {
          // Reverse only what the change did: flags it added that were not there before, flags it removed that were.
          const had = new Set([...e.before.labels, ...(e.before.starred ? [FLAGGED] : [])]);
          changes.push({
            ...e,
            flags: {
              add: (e.flags?.remove ?? []).filter((f) => had.has(f)),
              remove: (e.flags?.add ?? []).filter((f) => !had.has(f)),
            },
          });
          restored.push(e.messageId);
        } else if (m.folder === e.from) restored.push(e.messageId);
        else if (m.folder !== e.to) notRestored.push(`${e.messageId}:moved_since`);
        else {
          changes.push({ ...e, to: e.from });
          restored.push(e.messageId);
        }
      }
      return {
        tool,
        args,
        resolved,
        ok: (body) => {
          expect(body['undone']).toBe(rec.action);
          expect(ids(body['restored']), 'restored').toEqual(restored.sort());
          expect(
            (body['notRestored'] as { messageId: string; reason: string }[])
              .map((x) => `${x.messageId}:${x.reason}`)
              .sort(),
            'notRestored',
          ).toEqual(notRestored.sort());
          rec.used = true;
          applyEntries(w, changes);
        },
      };
    }
    case 'setSend': {
      const args = { enabled: s.enabled, ...opt('humanConfirmedInChat', s.confirm) };
      if (s.confirm !== true) return { tool: 'set_send_enabled', args, error: 'confirmation_required' };
      return {
        tool: 'set_send_enabled',
        args,
        ok: (body) => {
          expect(body['sendEnabled']).toBe(s.enabled);
          w.sendEnabled = s.enabled;
        },
      };
    }
    case 'draft': {
      const to = RECIPIENTS[s.to];
      return {
        tool: 'create_draft',
        args: { inboxId, to, subject: 'Model draft', text: 'Hello,\n\nthis is a draft.\n' },
        ok: (body) => {
          expect(body['sendAvailable']).toBe(w.sendEnabled);
          w.drafts += 1;
          if (!w.sendEnabled) return;
          w.sends.push({
            id: body['pendingSendId'] as string,
            to: (body['draft'] as { to: string }).to,
            status: 'pending',
            attempts: 0,
            expiresAt: w.now + APPROVAL_MS,
            draftStatus: 'draft',
          });
        },
      };
    }
    case 'send': {
      const psId =
        pin?.psId ??
        pick(w.sends, s.ps, (x) => x.status === 'sent')?.id ??
        (s.ps.kind === 'forged' ? s.ps.id : 'ps_00000000000000000000');
      const ps = w.sends.find((x) => x.id === psId);
      const others = w.sends.filter((x) => x.id !== psId);
      const other = others[s.forgedCode.charCodeAt(0) % Math.max(others.length, 1)];
      const code =
        pin?.code ??
        (s.code === 'right'
          ? (env.codes.get(psId) ?? s.forgedCode)
          : s.code === 'other' && other !== undefined
            ? env.codes.get(other.id)!
            : s.forgedCode);
      const right = ps !== undefined && code === env.codes.get(ps.id);
      const to = ps?.to ?? RECIPIENTS[0];
      const confirmTo = pin
        ? pin.confirmTo
        : s.confirmTo === 'absent'
          ? undefined
          : s.confirmTo === 'mismatch'
            ? `${to}, stranger@example.org`
            : to.includes(',')
              ? CONFIRM_MATCH[1]
              : CONFIRM_MATCH[0];
      const args = {
        pendingSendId: psId,
        approvalCode: code,
        ...opt('humanApprovedInChat', s.approved),
        ...(confirmTo !== undefined && { confirmTo }),
      };
      const tool = 'send_draft';
      const resolved = `${psId}${ps === undefined ? ' (forged)' : ` (${ps.status})`}, ${right ? 'its code' : 'a wrong code'}`;
      if (s.approved === false) return { tool, args, resolved, error: 'human_approval_required' }; // the schema wants literal true
      if (!w.sendEnabled) return { tool, args, resolved, error: 'send_disabled' };
      if (s.approved !== true) return { tool, args, resolved, error: 'human_approval_required' };
      if (ps === undefined) return { tool, args, resolved, error: 'approval_invalid' };
      if (ps.status === 'locked') return { tool, args, resolved, error: 'approval_invalid' };
      if (!right) {
        return {
          tool,
          args,
          resolved,
          error: 'approval_invalid',
          onError: () => {
            ps.attempts += 1;
            if (ps.attempts >= MAX_WRONG_CODES && ps.status === 'pending') ps.status = 'locked';
          },
        };
      }
      if (ps.status !== 'pending') return { tool, args, resolved, error: 'approval_used' };
      if (ps.expiresAt <= w.now) return { tool, args, resolved, error: 'approval_expired' };
      if (s.confirmTo === 'mismatch') return { tool, args, resolved, error: 'confirm_mismatch' };
      if (inAppOnly(w)) return { tool, args, resolved, error: 'human_approval_required' };
      return {
        tool,
        args,
        resolved,
        ok: (body) => {
          expect(body['sent']).toBe(true);
          ps.status = 'sent';
          ps.draftStatus = 'sent';
          w.sent += 1;
          w.drafts -= 1;
        },
      };
    }
    case 'propose': {
      const messageId = env.lists[s.list % env.lists.length]!;
      return {
        tool: 'propose_unsubscribe',
        args: { inboxId, messageId },
        ok: (body) => {
          expect(body['isDemo']).toBe(env.isDemo ? true : undefined);
          // A new approval for a sender ends the one still waiting for it, as if it had expired now.
          const sender = s.list % env.lists.length;
          for (const x of w.unsubs)
            if (x.status === 'pending' && x.expiresAt > w.now && env.unsubSenders.get(x.id) === sender)
              x.expiresAt = w.now;
          env.unsubSenders.set(body['pendingUnsubscribeId'] as string, sender);
          w.unsubs.push({
            id: body['pendingUnsubscribeId'] as string,
            status: 'pending',
            attempts: 0,
            expiresAt: w.now + APPROVAL_MS,
          });
        },
      };
    }
    case 'unsub': {
      const puId =
        pin?.psId ??
        pick(w.unsubs, s.pu, (x) => x.status === 'done')?.id ??
        (s.pu.kind === 'forged' ? s.pu.id : 'pu_00000000000000000000');
      const pu = w.unsubs.find((x) => x.id === puId);
      const others = [...w.unsubs, ...w.sends].filter((x) => x.id !== puId);
      const other = others[s.forgedCode.charCodeAt(0) % Math.max(others.length, 1)];
      const code =
        pin?.code ??
        (s.code === 'right'
          ? (env.codes.get(puId) ?? s.forgedCode)
          : s.code === 'other' && other !== undefined
            ? env.codes.get(other.id)!
            : s.forgedCode);
      const right = pu !== undefined && code === env.codes.get(pu.id);
      const args = {
        pendingUnsubscribeId: puId,
        approvalCode: code,
        ...opt('humanApprovedInChat', s.approved),
      };
      const tool = 'confirm_unsubscribe';
      const resolved = `${puId}${pu === undefined ? ' (forged)' : ` (${pu.status})`}, ${right ? 'its code' : 'a wrong code'}`;
      const pinned = { psId: puId, code };
      if (s.approved !== true) return { tool, args, resolved, pin: pinned, error: 'human_approval_required' };
      if (pu === undefined || pu.status === 'locked')
        return { tool, args, resolved, pin: pinned, error: 'approval_invalid' };
      if (!right) {
        return {
          tool,
          args,
          resolved,
          pin: pinned,
          error: 'approval_invalid',
          onError: () => {
            pu.attempts += 1;
            if (pu.attempts >= MAX_WRONG_CODES && pu.status === 'pending') pu.status = 'locked';
          },
        };
      }
      if (pu.status !== 'pending') return { tool, args, resolved, pin: pinned, error: 'approval_used' };
      if (pu.expiresAt <= w.now) return { tool, args, resolved, pin: pinned, error: 'approval_expired' };
      if (inAppOnly(w)) return { tool, args, resolved, pin: pinned, error: 'human_approval_required' };
      return {
        tool,
        args,
        resolved,
        pin: pinned,
        ok: (body) => {
          expect(body).toMatchObject({ unsubscribed: true, result: 'done' });
          expect(body['isDemo']).toBe(env.isDemo ? true : undefined);
          pu.status = 'done';
        },
      };
    }
    case 'inApp': {
      const patch =
        s.scope === 'defaults'
          ? { defaults: { sending: { requireInAppConfirmation: s.on } } }
          : { inboxes: { [inboxId]: { sending: { requireInAppConfirmation: s.on } } } };
      const next =
        s.scope === 'defaults' ? { ...w.inApp, defaults: s.on } : { defaults: w.inApp.defaults, inbox: s.on };
      // Off anywhere it was on — in the defaults, which every inbox without its own setting follows, or for this
      // inbox — is the person's alone.
      const loosened =
        (w.inApp.defaults && !next.defaults) || (inAppOnly(w) && !(next.inbox ?? next.defaults));
      const tool = 'update_triage_profile';
      if (loosened) return { tool, args: { patch }, error: 'human_approval_required' };
      return { tool, args: { patch }, ok: () => void (w.inApp = next) };
    }
    case 'dropVip': {
      const patch =
        s.scope === 'defaults'
          ? { defaults: { vip: { people: [] } } }
          : { inboxes: { [inboxId]: { vip: { people: [] } } } };
      const had = s.scope === 'defaults' ? w.vipPeople.defaults : (w.vipPeople.inbox ?? w.vipPeople.defaults);
      const tool = 'update_triage_profile';
      if (had.length > 0) return { tool, args: { patch }, error: 'vip_confirmation_required' };
      return {
        tool,
        args: { patch },
        ok: () =>
          void (w.vipPeople =
            s.scope === 'defaults' ? { ...w.vipPeople, defaults: [] } : { ...w.vipPeople, inbox: [] }),
      };
    }
    case 'person':
    case 'tick':
    case 'outside':
      return {};
    case 'sync':
      return { tool: 'sync_inbox', args: { inboxId }, ok: () => undefined };
    case 'pair':
      throw new Error('a pair is planned call by call');
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The acceptance criteria, checked on their own from the real states before and after a step

const MAIL_CHANGING = new Set<Spec['t']>(['single', 'act', 'actSender', 'undo']);

function invariants(
  s: Spec,
  before: World,
  after: World,
  r: ToolResult | undefined,
  env: Env,
  args: Record<string, unknown> | undefined,
) {
  const ctx = `${describeSpec(s, env)} → ${JSON.stringify(r?.body ?? null).slice(0, 600)}`;
  const moved: { id: string; from: Folder; to: Folder }[] = [];
  const flagged: string[] = [];
  for (const [id, b] of before.msgs) {
    const a = after.msgs.get(id)!;
    if (a.folder !== b.folder) moved.push({ id, from: b.folder, to: a.folder });
    if (a.starred !== b.starred || a.labels.join() !== b.labels.join()) flagged.push(id);
    expect(a.unread, `${ctx}: nothing here changes unread`).toBe(b.unread);
  }
  if (!MAIL_CHANGING.has(s.t))
    expect({ moved, flagged }, `${ctx}: only change tools change mail`).toEqual({ moved: [], flagged: [] });

  // One agent at a time: the other agent's live lease stops every change, and every attempt to take the lease.
  const held = live(before);
  if (held !== null && 'agent' in s && held.agent !== s.agent) {
    if (MAIL_CHANGING.has(s.t)) {
      expect({ moved, flagged }, `${ctx}: changed mail under the other agent's lease`).toEqual({
        moved: [],
        flagged: [],
      });
      if (r?.isError === false) expect(r.body['changed'] ?? r.body['restored'], ctx).toEqual([]);
    }
    if (s.t === 'begin' || s.t === 'heartbeat') {
      expect(r?.body['error'], `${ctx}: took the lease from the other agent`).toBe('lease_held');
      expect(after.lease, ctx).toEqual(before.lease);
    }
  }
  const liveAfter = live(after);
  if (s.t !== 'tick' && held !== null && liveAfter !== null)
    expect(liveAfter.agent, `${ctx}: the lease changed hands while live`).toBe(held.agent);

  // VIP mail leaves the inbox's reach only by a single-message call the person confirmed.
  const vipMoves = moved.filter((m) => env.byId.get(m.id)!.vip && m.to !== 'inbox');
  for (const m of vipMoves) {
    const confirmedSingle =
      (s.t === 'single' && s.confirmed === true) ||
      (s.t === 'act' && s.items.length === 1 && s.vipConfirmed === true && MOVES[s.action] !== undefined);
    // An undo puts a message back where it was before a change (one the person confirmed, if it was VIP mail).
    const undoneBack =
      s.t === 'undo' &&
      before.undos.some(
        (u) => u.id === args?.['undoId'] && u.entries.some((e) => e.messageId === m.id && e.from === m.to),
      );
    expect(
      confirmedSingle || undoneBack,
      `${ctx}: VIP message ${env.byId.get(m.id)!.name} moved to ${m.to}`,
    ).toBe(true);
  }
  if ((s.t === 'act' || s.t === 'actSender') && MOVES[s.action] !== undefined && r?.isError === false) {
    const bulk = s.t === 'actSender' || s.items.length > 1;
    const targeted =
      s.t === 'act'
        ? (args?.['items'] as { messageId: string }[]).map((i) => i.messageId)
        : env.pool
            .filter((p) => p.from === env.senders[s.sender] && before.msgs.get(p.id)!.folder === 'inbox')
            .map((p) => p.id);
    const skippedVip = new Set(
      (r.body['skipped'] as { messageId: string; reason: string }[])
        .filter((x) => x.reason === 'vip')
        .map((x) => x.messageId),
    );
    if (bulk)
      for (const id of new Set(targeted))
        if (env.byId.get(id)?.vip === true)
          expect(skippedVip.has(id), `${ctx}: bulk call did not skip VIP ${env.byId.get(id)!.name}`).toBe(
            true,
          );
  }

  // Sending: a new message in Sent only with sending on, the person's approval and the right unused code.
  const newSent = after.sent - before.sent;
  const flipped = after.sends.filter(
    (x) => x.status === 'sent' && before.sends.find((b) => b.id === x.id)?.status !== 'sent',
  );
  expect(newSent, `${ctx}: messages filed in Sent`).toBe(flipped.length);
  expect(flipped.length, `${ctx}: more than one send in one call`).toBeLessThanOrEqual(1);
  for (const b of before.sends)
    if (b.status === 'sent') expect(after.sends.find((x) => x.id === b.id)?.status, ctx).toBe('sent');
  if (s.t === 'send') {
    const psId = args?.['pendingSendId'] as string;
    const code = args?.['approvalCode'] as string;
    const b = before.sends.find((x) => x.id === psId);
    const gated = before.sendEnabled && s.approved === true && b !== undefined && b.status !== 'locked';
    if (flipped.length === 1) {
      expect(flipped[0]!.id, ctx).toBe(psId);
      expect(
        {
          enabled: before.sendEnabled,
          approved: s.approved,
          rightCode: code === env.codes.get(psId),
          status: b?.status,
          live: (b?.expiresAt ?? 0) > before.now,
          inAppOnly: inAppOnly(before),
        },
        `${ctx}: sent without every approval`,
      ).toEqual({
        enabled: true,
        approved: true,
        rightCode: true,
        status: 'pending',
        live: true,
        inAppOnly: false,
      });
    }
    if (gated && code !== env.codes.get(psId))
      expect(r?.body['error'], `${ctx}: a forged code`).toBe('approval_invalid');
    if (gated && code === env.codes.get(psId) && b.status === 'sent')
      expect(r?.body['error'], `${ctx}: a reused code`).toBe('approval_used');
  } else expect(flipped, `${ctx}: only send_draft sends`).toEqual([]);

  // Unsubscribing: a request only with the person's approval and the right unused, live code; once per approval.
  const requested = after.unsubs.filter(
    (x) => x.status === 'done' && before.unsubs.find((b) => b.id === x.id)?.status !== 'done',
  );
  expect(requested.length, `${ctx}: more than one unsubscribe request in one call`).toBeLessThanOrEqual(1);
  for (const b of before.unsubs)
    if (b.status === 'done') expect(after.unsubs.find((x) => x.id === b.id)?.status, ctx).toBe('done');
  if (s.t === 'unsub') {
    const puId = args?.['pendingUnsubscribeId'] as string;
    const code = args?.['approvalCode'] as string;
    const b = before.unsubs.find((x) => x.id === puId);
    if (requested.length === 1)
      expect(
        {
          id: requested[0]!.id,
          approved: s.approved,
          rightCode: code === env.codes.get(puId),
          status: b?.status,
          live: (b?.expiresAt ?? 0) > before.now,
          inAppOnly: inAppOnly(before),
        },
        `${ctx}: an unsubscribe request without every approval`,
      ).toEqual({
        id: puId,
        approved: true,
        rightCode: true,
        status: 'pending',
        live: true,
        inAppOnly: false,
      });
    if (s.approved === true && b !== undefined && b.status !== 'locked' && code !== env.codes.get(puId))
      expect(r?.body['error'], `${ctx}: a forged code`).toBe('approval_invalid');
  } else expect(requested, `${ctx}: only confirm_unsubscribe makes a request`).toEqual([]);

  // Undo: once, and it puts back what the change did.
  if (s.t === 'undo') {
    const undoId = args?.['undoId'] as string;
    const rec = before.undos.find((u) => u.id === undoId);
    if (rec?.used === true)
      expect(r?.body['error'], `${ctx}: a second undo of the same id`).toBe('undo_unavailable');
    if (r?.isError === false) {
      expect(rec?.used, `${ctx}: undid an unknown or used handle`).toBe(false);
      for (const id of ids(r.body['restored'])) {
        const e = rec!.entries.find((x) => x.messageId === id)!;
        const a = after.msgs.get(id)!;
        if (e.to !== null)
          expect(a.folder, `${ctx}: ${env.byId.get(id)!.name} not back in its folder`).toBe(e.from);
        else {
          // The flags the change really changed are as before it; the others are left as they are now.
          const has = (f: string) => (f === FLAGGED ? a.starred : a.labels.includes(f));
          const had = (f: string) => (f === FLAGGED ? e.before.starred : e.before.labels.includes(f));
          const changedByIt = [
            ...(e.flags?.add ?? []).filter((f) => !had(f)),
            ...(e.flags?.remove ?? []).filter((f) => had(f)),
          ];
          for (const f of changedByIt)
            expect(has(f), `${ctx}: ${env.byId.get(id)!.name} flag ${f} not as before the change`).toBe(
              had(f),
            );
        }
      }
      expect(after.undos.find((u) => u.id === undoId)?.used, ctx).toBe(true);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// One step: predict, call, compare

function learn(env: Env, body: Record<string, unknown>) {
  const undoId = body['undoId'];
  if (typeof undoId === 'string' && !env.undoOrder.includes(undoId)) env.undoOrder.push(undoId);
  const code = body['approvalCode'];
  for (const key of ['pendingSendId', 'pendingUnsubscribeId']) {
    const id = body[key];
    if (typeof id === 'string' && typeof code === 'string') env.codes.set(id, code);
  }
}

const bump = (env: Env, key: string) => env.outcomes.set(key, (env.outcomes.get(key) ?? 0) + 1);

/** Counts outcomes (also under `pair:` for concurrent calls), to show the runs reached them. */
function count(env: Env, s: Spec, r: ToolResult, args: Record<string, unknown>, before: World, pair = false) {
  const keys = [`${s.t}:${r.isError ? String(r.body['error']) : 'ok'}`];
  if (s.t === 'act' && !r.isError && sortedSkips(r.body).some((x) => x.endsWith(':vip')))
    keys.push('act:vip_skipped');
  if (
    s.t === 'undo' &&
    r.body['error'] === 'undo_unavailable' &&
    before.undos.some((u) => u.id === args['undoId'] && u.used)
  )
    keys.push('undo:reused_refused');
  for (const key of keys) {
    bump(env, key);
    if (pair) bump(env, `pair:${key}`);
  }
}

/** Checks a result against the plan and, for a success, finishes the model update. */
function checkResult(s: Spec, p: Plan, r: ToolResult, env: Env) {
  const ctx = `${describeSpec(s, env)}${p.resolved === undefined ? '' : ` {${p.resolved}}`} → ${JSON.stringify(r.body).slice(0, 800)}`;
  try {
    if (p.error === undefined) {
      expect(r.isError, 'expected success').toBe(false);
      p.ok?.(r.body);
    } else {
      expect({ isError: r.isError, error: r.body['error'] }, `expected ${p.error}`).toEqual({
        isError: true,
        error: p.error,
      });
      p.onError?.();
    }
  } catch (e) {
    throw new Error(`${ctx}\n${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/**
 * What the index and the mailbox say of one message, for a failure that says it is not there (the seed-204662483 run on
 * Dovecot: a list message the model held in the mailbox was `message_not_found` to propose_unsubscribe — a reused IMAP
 * login read its folder from a view older than the message's arrival there; decision 0026, amended).
 */
async function whereIs(env: Env, messageId: string): Promise<string> {
  const row = await env.app.stores.messages.get(env.inboxId as InboxId, messageId as MessageId);
  const folders = await env.app.stores.folders.list(env.inboxId as InboxId);
  const path = folders.find((f) => f.id === row?.folderId)?.path;
  const rows = await env.mailbox();
  const held = rows
    .filter((r) => row !== undefined && r.messageId === row.internetMessageId)
    .map((r) => `${r.path}#${r.ref}`);
  return [
    `index: ${row === undefined ? 'no row' : `${path ?? `no folder ${row.folderId}`}#${row.providerRef}`}`,
    `mailbox: ${held.join(', ') || 'nowhere'}`,
    `last steps:\n${env.recent.join('\n')}`,
  ].join('\n');
}

async function step(cmd: Step, w: World, env: Env) {
  const s = cmd.spec;
  const before = structuredClone(w);
  const p = plan(s, w, env);
  cmd.resolved = p.resolved ?? '';
  let r: ToolResult | undefined;
  if (s.t === 'tick') {
    env.clock.advance(s.ms);
    w.now += s.ms;
  } else if (s.t === 'person') {
    await env.person.get('/settings/preferences');
    const res = await env.person.post('/settings/preferences/confirm-in-app', {
      required: s.on ? 'on' : 'off',
    });
    expect(res.status, 'the console switch').toBe(303);
    w.inApp = { defaults: s.on, inbox: null };
  } else if (s.t === 'outside') {
    cmd.resolved = await outsideChange(env, s);
    if (env.outside !== undefined) {
      env.outsidePending = true;
      env.outcomes.set('outside', (env.outcomes.get('outside') ?? 0) + 1);
    }
  } else if (p.tool !== undefined && 'agent' in s) {
    r = await env.agents[s.agent](p.tool, p.args ?? {});
    learn(env, r.body);
    count(env, s, r, p.args ?? {}, before);
    if (s.t === 'propose' && p.error === undefined && r.body['error'] === 'message_not_found')
      throw new Error(
        `${describeSpec(s, env)} → message_not_found\n${await whereIs(env, String(p.args?.['messageId']))}`,
      );
    checkResult(s, p, r, env);
  }
  const after = await readWorld(env);
  invariants(s, before, after, r, env, p.args);
  expect(view(after, env), `real state after ${describeSpec(s, env)} vs the model`).toEqual(view(w, env));
  if (s.t === 'sync' && r?.isError === false) {
    await inboxConverged(env);
    if (env.outsidePending) env.outcomes.set('converged', (env.outcomes.get('converged') ?? 0) + 1);
    env.outsidePending = false;
  }
}

/** A change by another mail client, on mail outside the pool; returns what it did, for the failure report. */
async function outsideChange(env: Env, s: Extract<Spec, { t: 'outside' }>): Promise<string> {
  const outside = env.outside;
  if (outside === undefined) return 'no other client';
  const rows = await env.mailbox();
  const present = env.outsiders.filter((id) => rows.some((r) => r.messageId === id));
  if (s.op === 'deliver' || present.length === 0) {
    const n = env.outsiders.length;
    const messageId = `<outside-${String(n)}-${String(env.clock.now().getTime())}@model.example.test>`;
    await outside.deliver(
      buildMessage({
        from: { name: 'Stranger', address: `stranger${String(n)}@${OUTSIDE_DOMAIN}` },
        to: [{ address: 'model@example.test' }],
        subject: `Outside ${String(n)}`,
        date: env.clock.now(),
        messageId,
        text: `Delivered while the agents worked (${String(n)}).`,
      }),
    );
    env.outsiders.push(messageId);
    return `delivered ${messageId}`;
  }
  const messageId = present[s.n % present.length]!;
  const row = rows.find((r) => r.messageId === messageId)!;
  switch (s.op) {
    case 'move':
      await outside.move(row, s.to);
      break;
    case 'seen':
      await outside.flag(row, '\\Seen', s.on);
      break;
    case 'flag':
      await outside.flag(row, FLAGGED, s.on);
      break;
    case 'delete':
      await outside.remove(row);
      break;
  }
  return `${messageId} at ${row.path}#${row.ref}`;
}

/**
 * After `sync_inbox` the index of the inbox folder (the one folder synced by default) is the mailbox's inbox folder:
 * every message once, under its ref, with its flags — whatever another client changed meanwhile.
 */
async function inboxConverged(env: Env) {
  const folder = (await env.app.stores.folders.list(env.inboxId as InboxId)).find(
    (f) => f.canonical === 'inbox',
  )!;
  const indexed = (
    await env.app.stores.messages.list(env.inboxId as InboxId, {
      folderId: folder.id,
      limit: 1000,
      offset: 0,
    })
  ).items
    .map(
      (m) =>
        `${m.providerRef} ${m.unread ? 'unread' : 'read'}${m.starred ? ' starred' : ''} ${[...m.labels].sort().join(',')}`,
    )
    .sort();
  const held = (await env.mailbox())
    .filter((r) => r.path === folder.path)
    .map(
      (r) =>
        `${r.ref} ${r.flags.includes('\\Seen') ? 'read' : 'unread'}${r.flags.includes(FLAGGED) ? ' starred' : ''} ${r.flags
          .filter((f) => !f.startsWith('\\'))
          .sort()
          .join(',')}`,
    )
    .sort();
  expect(
    indexed,
    `the inbox folder after sync_inbox, index vs mailbox. The last steps:\n${env.recent.join('\n')}`,
  ).toEqual(held);
}

/**
 * A and B call at the same moment (the requests interleave inside the app). Both answers and the state after
 * must be those of A-then-B or of B-then-A, with the same ids and codes; the rules are then checked along that order.
 */
async function pairStep(cmd: Step, s: Extract<Spec, { t: 'pair' }>, w: World, env: Env) {
  const before = structuredClone(w);
  const calls = [s.a, s.b].map((spec) => ({ spec, plan: plan(spec, structuredClone(w), env) }));
  cmd.resolved = calls.map((c) => c.plan.resolved ?? '-').join(' ‖ ');
  const invoke = ({ spec, plan: p }: (typeof calls)[number]) => {
    if (!('agent' in spec) || p.tool === undefined) throw new Error('a pair holds two tool calls');
    return env.agents[spec.agent](p.tool, p.args ?? {});
  };
  const [ra, rb] = await Promise.all([invoke(calls[0]!), invoke(calls[1]!)]);
  for (const [i, r] of [ra, rb].entries()) {
    learn(env, r.body);
    count(env, calls[i]!.spec, r, calls[i]!.plan.args ?? {}, before, true);
  }
  const after = await readWorld(env);
  const failures: string[] = [];
  for (const order of [
    [0, 1],
    [1, 0],
  ] as const) {
    const m = structuredClone(w);
    const worlds: World[] = [];
    try {
      for (const i of order) {
        const c = calls[i]!;
        checkResult(c.spec, plan(c.spec, m, env, c.plan.pin), [ra, rb][i]!, env);
        worlds.push(structuredClone(m));
      }
      expect(view(after, env), 'the state after both calls').toEqual(view(m, env));
    } catch (e) {
      failures.push(
        `${order.map((i) => (i === 0 ? 'A' : 'B')).join(' then ')}: ${e instanceof Error ? e.message : String(e)}`,
      );
      continue;
    }
    const [first, second] = order;
    invariants(calls[first]!.spec, before, worlds[0]!, [ra, rb][first], env, calls[first]!.plan.args);
    invariants(calls[second]!.spec, worlds[0]!, after, [ra, rb][second], env, calls[second]!.plan.args);
    // Of two concurrent takes of one lease, one approval or one undo handle, one wins at most.
    const same =
      s.a.t === s.b.t &&
      (s.a.t === 'begin' ||
        ((s.a.t === 'send' || s.a.t === 'undo' || s.a.t === 'unsub') &&
          JSON.stringify(calls[0]!.plan.pin) === JSON.stringify(calls[1]!.plan.pin)));
    if (same) expect([ra.isError, rb.isError], `two winners: ${describeSpec(s, env)}`).toContain(true);
    Object.assign(w, m);
    return;
  }
  throw new Error(
    `no order of the concurrent calls explains the outcome: ${describeSpec(s, env)} {${cmd.resolved}}\n${failures.join('\n---\n')}`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Generators

const tri = (pTrue = 1) =>
  fc.oneof(
    { weight: pTrue, arbitrary: fc.constant<Tri>(true) },
    { weight: 1, arbitrary: fc.constant<Tri>(false) },
    { weight: 1, arbitrary: fc.constant<Tri>(undefined) },
  );
const token = (prefix: string) => fc.stringMatching(/^[a-z0-9]{20}$/).map((x) => `${prefix}_${x}`);
const agent = fc.constantFrom<Agent>('A', 'B');
const alt = fc.oneof(
  { weight: 5, arbitrary: fc.constant(false) },
  { weight: 1, arbitrary: fc.constant(true) },
);
const msgRef: fc.Arbitrary<MsgRef> = fc.oneof(
  { weight: 10, arbitrary: fc.nat(999).map((n) => ({ pool: n, vip: false })) },
  { weight: 7, arbitrary: fc.nat(999).map((n) => ({ pool: n, vip: true })) },
  { weight: 1, arbitrary: token('msg').map((forged) => ({ forged })) },
);
const ref = (prefix: string): fc.Arbitrary<Ref> =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant<Ref>({ kind: 'latest' }) },
    { weight: 2, arbitrary: fc.constant<Ref>({ kind: 'used' }) },
    { weight: 3, arbitrary: fc.nat(4).map((n): Ref => ({ kind: 'recent', n })) },
    { weight: 2, arbitrary: fc.nat(999).map((n): Ref => ({ kind: 'any', n })) },
    { weight: 1, arbitrary: token(prefix).map((id): Ref => ({ kind: 'forged', id })) },
    { weight: 1, arbitrary: fc.constant<Ref>({ kind: 'forged', id: `${prefix}_FORGED` }) },
  );
const action = fc.constantFrom<Action>('trash', 'spam', 'archive', 'star', 'unstar', 'label');

const begin = fc.record({ t: fc.constant('begin' as const), agent, alt, force: tri() });
const heartbeat = fc.record({ t: fc.constant('heartbeat' as const), agent, alt });
const end = fc.record({ t: fc.constant('end' as const), agent, alt });
const single = fc.record({
  t: fc.constant('single' as const),
  agent,
  tool: fc.constantFrom('trash_message' as const, 'mark_as_spam' as const),
  msg: msgRef,
  confirmed: tri(2),
});
const act = fc.record({
  t: fc.constant('act' as const),
  agent,
  action,
  items: fc.oneof(
    { weight: 2, arbitrary: msgRef.map((m) => [m]) },
    { weight: 3, arbitrary: fc.array(msgRef, { minLength: 2, maxLength: 5 }) },
  ),
  vipConfirmed: tri(),
  label: fc.constantFrom('Travel', 'Receipts', 'model-label'),
});
const actSender = fc.record({
  t: fc.constant('actSender' as const),
  agent,
  action,
  sender: fc.constantFrom<0 | 1>(0, 1),
  vipConfirmed: tri(),
});
const undo = fc.record({ t: fc.constant('undo' as const), agent, ref: ref('undo') });
const setSend = fc.record({
  t: fc.constant('setSend' as const),
  agent,
  enabled: fc.oneof(
    { weight: 2, arbitrary: fc.constant(true) },
    { weight: 1, arbitrary: fc.constant(false) },
  ),
  confirm: tri(3),
});
const draft = fc.record({ t: fc.constant('draft' as const), agent, to: fc.constantFrom<0 | 1>(0, 1) });
const send = fc.record({
  t: fc.constant('send' as const),
  agent,
  ps: ref('ps'),
  code: fc.constantFrom(
    'right' as const,
    'right' as const,
    'right' as const,
    'forged' as const,
    'other' as const,
  ),
  approved: tri(5),
  confirmTo: fc.constantFrom('match' as const, 'absent' as const, 'mismatch' as const),
  forgedCode: fc.stringMatching(/^[a-z0-9]{24}$/),
});
/** An agent that follows the protocol: the latest approval (or a used one again), its code, the person's yes. */
const sendAsTold = fc.record({
  t: fc.constant('send' as const),
  agent,
  ps: fc.constantFrom<Ref>({ kind: 'latest' }, { kind: 'latest' }, { kind: 'used' }),
  code: fc.constant('right' as const),
  approved: fc.constant<Tri>(true),
  confirmTo: fc.constantFrom('match' as const, 'absent' as const),
  forgedCode: fc.stringMatching(/^[a-z0-9]{24}$/),
});
const propose = fc.record({
  t: fc.constant('propose' as const),
  agent,
  list: fc.integer({ min: 0, max: 50 }),
});
const unsub = fc.record({
  t: fc.constant('unsub' as const),
  agent,
  pu: ref('pu'),
  code: fc.constantFrom('right' as const, 'right' as const, 'forged' as const, 'other' as const),
  approved: tri(4),
  forgedCode: fc.stringMatching(/^[a-z0-9]{24}$/),
});
/** An agent that follows the protocol: the latest proposal (or a used one again), its code, the person's yes. */
const unsubAsTold = fc.record({
  t: fc.constant('unsub' as const),
  agent,
  pu: fc.constantFrom<Ref>({ kind: 'latest' }, { kind: 'latest' }, { kind: 'used' }),
  code: fc.constant('right' as const),
  approved: fc.constant<Tri>(true),
  forgedCode: fc.stringMatching(/^[a-z0-9]{24}$/),
});
/**
 * An agent that obeys what a hostile message told it: every approval flag set, and the code the message made up
 * (a plausible one, or one another approval carries). Whatever it does, nothing is sent or requested without the
 * person's real code, and a VIP's message moves only one at a time with the flag the person gave.
 */
const INJECTED_CODES = ['000000', '123456', 'approved', 'a'.repeat(24)];
const obey = fc.oneof<fc.Arbitrary<Spec>[]>(
  fc.record({
    t: fc.constant('send' as const),
    agent,
    ps: ref('ps'),
    code: fc.constantFrom('forged' as const, 'other' as const),
    approved: fc.constant<Tri>(true),
    confirmTo: fc.constant('absent' as const),
    forgedCode: fc.constantFrom(...INJECTED_CODES),
  }),
  fc.record({
    t: fc.constant('unsub' as const),
    agent,
    pu: ref('pu'),
    code: fc.constantFrom('forged' as const, 'other' as const),
    approved: fc.constant<Tri>(true),
    forgedCode: fc.constantFrom(...INJECTED_CODES),
  }),
  fc.record({
    t: fc.constant('act' as const),
    agent,
    action: fc.constantFrom<Action>('trash', 'spam', 'archive'),
    items: fc.array(fc.record({ pool: fc.nat(20), vip: fc.constant(true) }), { minLength: 2, maxLength: 4 }),
    vipConfirmed: fc.constant<Tri>(true),
    label: fc.constant('x'),
  }),
);
const tick = fc.record({
  t: fc.constant('tick' as const),
  ms: fc.oneof(
    { weight: 4, arbitrary: fc.constant(60_000) },
    { weight: 3, arbitrary: fc.constant(3 * 60_000) },
    { weight: 3, arbitrary: fc.constant(6 * 60_000) },
    { weight: 1, arbitrary: fc.constant(25 * 3_600_000) },
  ),
});
const sync = fc.record({ t: fc.constant('sync' as const), agent });
const scope = fc.constantFrom<'defaults' | 'inbox'>('defaults', 'inbox');
// Mostly off, the attempts that must fail; turned on a quarter of the time by an agent and by the person, and off by
// the person otherwise, so that sends and unsubscribes still get through often enough to be tested.
const rarelyOn = fc.constantFrom(false, false, false, true);
const inApp = fc.record({ t: fc.constant('inApp' as const), agent, on: rarelyOn, scope });
const dropVip = fc.record({ t: fc.constant('dropVip' as const), agent, scope });
const person = fc.record({ t: fc.constant('person' as const), on: rarelyOn });
const outside = fc.record({
  t: fc.constant('outside' as const),
  op: fc.constantFrom<OutsideOp>('move', 'move', 'seen', 'flag', 'delete', 'deliver'),
  n: fc.nat(50),
  to: fc.constantFrom<Folder>('inbox', 'archive', 'trash', 'spam'),
  on: fc.boolean(),
});
/**
 * What two agents may race on. The lease, an approval and an undo handle are each taken by one conditional
 * statement, so every pair with at least one lease, draft or send call must be explained by one order of the two
 * calls; a third of the pairs make the same call twice (the same lease, or the same approval code). Not in here,
 * because they fail today (see the tests after the property): two concurrent changes of the same message, and two
 * concurrent undos of the same handle while one of the agents holds the lease.
 */
const atomic = fc.oneof<fc.Arbitrary<Spec>[]>(begin, heartbeat, end, send, sendAsTold, draft, unsubAsTold);
const anyRacy = fc.oneof<fc.Arbitrary<Spec>[]>(
  begin,
  heartbeat,
  end,
  send,
  sendAsTold,
  draft,
  single,
  act,
  undo,
);
const asPair = (a: Spec, b: Spec): Spec => ({
  t: 'pair',
  a: { ...a, agent: 'A' } as Spec,
  b: { ...b, agent: 'B' } as Spec,
});
const pair = fc.oneof(
  fc.tuple(atomic, anyRacy).map(([a, b]) => asPair(a, b)),
  fc.tuple(anyRacy, atomic).map(([a, b]) => asPair(a, b)),
  atomic.map((a) => asPair(a, a)),
);

const specs: [number, fc.Arbitrary<Spec>][] = [
  [3, begin],
  [2, heartbeat],
  [3, end],
  [5, single],
  [8, act],
  [2, actSender],
  [6, undo],
  [2, setSend],
  [3, draft],
  [5, send],
  [3, sendAsTold],
  [2, propose],
  [2, unsub],
  [2, unsubAsTold],
  [3, obey],
  [2, tick],
  [2, sync],
  // Twice the weight of the person's switch: an agent's attempt to turn confirming in the app off while it is on
  // (refused) is the rarest outcome. At weight 2 a batch of 40 runs missed it about once in 14 (7% in a simulation of
  // the switches alone, 3 of 38 batches in four full runs), and a Gmail-on-PostgreSQL batch under load took 120 s;
  // at 4 it is missed about once in 200.
  [4, inApp],
  [1, dropVip],
  [2, person],
  [3, outside],
  [4, pair],
];
const commands = specs.flatMap(([weight, arb]) =>
  Array.from({ length: weight }, () => arb.map((spec) => new Step(spec))),
);

// Titles are cut at 40 characters ($where), and `-t` filters on the cut title.
describe.each([
  { where: 'the demo inbox', backend: demoBackend },
  { where: 'the demo inbox on PostgreSQL, each on a node of its own', backend: demoTwoNodesBackend },
  { where: 'an IMAP inbox on Dovecot', backend: () => dovecotBackend() },
  { where: 'a plain IMAP4rev1 server', backend: () => dovecotBackend(PLAIN_IMAP_SERVER) },
  {
    where: 'folders under INBOX (INBOX.Sent)',
    backend: () => dovecotBackend({ ...PLAIN_IMAP_SERVER, underInbox: true }),
  },
  { where: 'a Microsoft 365 inbox (Graph)', backend: () => graphBackend() },
  { where: 'a Gmail inbox', backend: () => gmailBackend() },
  {
    where: 'Graph, each agent on a PostgreSQL node',
    backend: () => graphBackend({ twoNodes: true }),
  },
  {
    where: 'Gmail, each agent on a PostgreSQL node',
    backend: () => gmailBackend({ twoNodes: true }),
  },
])('triage safety rules, model-based, two agents on $where', ({ backend }) => {
  let env: Env;
  let be: Backend;

  beforeAll(async () => {
    be = await backend();
    const { app, clock, inboxId } = be;
    const a = be.agent;
    const b = toolCaller(be.secondNode ?? app, await createKeyViaPage(a.web, 'second agent'));
    const agents = { A: a.call, B: b };
    const accountId = (
      await app.db.kysely
        .selectFrom('inboxes')
        .select('account_id')
        .where('id', '=', inboxId)
        .executeTakeFirstOrThrow()
    ).account_id;
    // No cadence: begin_triage starts whenever no other lease is live.
    expect(
      (await a.call('update_triage_profile', { patch: { defaults: { cadence: { everyHours: null } } } }))
        .isError,
    ).toBe(false);
    const synced = await a.call('sync_inbox', { inboxId });
    expect(synced.isError, JSON.stringify(synced.body)).toBe(false);

    // Every message of the inbox folder, from the index (a list_messages page is cut to the result size budget).
    const inboxFolder = (await app.stores.folders.list(inboxId as InboxId)).find(
      (f) => f.canonical === 'inbox',
    )!;
    const list = (
      await app.stores.messages.list(inboxId as InboxId, { folderId: inboxFolder.id, limit: 1000, offset: 0 })
    ).items.map((m) => ({ messageId: m.id, from: m.from, internetMessageId: m.internetMessageId }));
    const count = new Map<string, number>();
    for (const m of list) count.set(m.from.address, (count.get(m.from.address) ?? 0) + 1);
    const frequent = [...count].filter(([, n]) => n >= 3 && n <= 8).sort((x, y) => y[1] - x[1]);
    const vip = frequent[0]![0];
    const otherSender = frequent[1]![0];
    const pool: PoolMsg[] = [];
    const take = (pred: (m: (typeof list)[number]) => boolean, prefix: string, max: number) => {
      for (const m of list.filter(pred).slice(0, max))
        pool.push({
          id: m.messageId,
          name: `${prefix}${String(pool.filter((p) => p.name.startsWith(prefix)).length)}`,
          from: m.from.address,
          vip: m.from.address === vip,
          internetMessageId: m.internetMessageId ?? '',
        });
    };
    take((m) => m.from.address === vip, 'vip', 100);
    take((m) => m.from.address === otherSender, 'snd', 100);
    const outsider = (m: (typeof list)[number]) => m.from.address.endsWith(`@${OUTSIDE_DOMAIN}`);
    take((m) => count.get(m.from.address) === 1 && !outsider(m), 'msg', 8);
    expect(pool.filter((p) => p.vip).length).toBeGreaterThanOrEqual(3);
    expect((await a.call('add_vip', { emails: [vip] })).isError).toBe(false);
    // The VIP in the profile's vip.people too, for the patches that would leave it out (decision 0102).
    expect(
      (await a.call('update_triage_profile', { patch: { defaults: { vip: { people: [vip] } } } })).isError,
    ).toBe(false);

    // Which credential is which agent, as the lease table records it.
    const holders = new Map<string, Agent>();
    for (const ag of ['A', 'B'] as const) {
      expect((await agents[ag]('begin_triage', { inboxId, agentLabel: 'probe' })).isError).toBe(false);
      const row = await app.db.kysely
        .selectFrom('leases')
        .select('holder')
        .where('inbox_id', '=', inboxId)
        .executeTakeFirstOrThrow();
      holders.set(row.holder, ag);
      expect((await agents[ag]('end_triage', { inboxId, agentLabel: 'probe' })).body['ended']).toBe(true);
    }
    const folderOf = new Map<string, Folder | 'other'>();
    for (const f of await app.stores.folders.list(inboxId as InboxId))
      folderOf.set(
        f.id,
        f.canonical === 'inbox' ||
          f.canonical === 'trash' ||
          f.canonical === 'spam' ||
          f.canonical === 'archive'
          ? f.canonical
          : 'other',
      );

    // Demo list mail whose one-click link is advertised (and DKIM-signed with the demo's key).
    const lists = (
      (await a.call('review_unsubscribes', { inbox: inboxId, limit: 100 })).body['senders'] as {
        messageId: string;
        oneClickAdvertised: boolean;
      }[]
    )
      .filter((r) => r.oneClickAdvertised)
      .map((r) => r.messageId);
    expect(lists.length).toBeGreaterThanOrEqual(2);

    env = {
      app,
      clock,
      inboxId,
      isDemo: be.isDemo,
      mailbox: be.mailbox,
      delivered: be.delivered,
      sentPath: be.sentPath,
      draftsPath: be.draftsPath,
      accountId,
      agents,
      person: a.web,
      holders,
      folderOf,
      pool,
      byId: new Map(pool.map((p) => [p.id, p])),
      senders: [vip, otherSender],
      undoOrder: [],
      codes: new Map(),
      outcomes: new Map(),
      recent: [],
      spare: list
        .filter((m) => !outsider(m) && !pool.some((p) => p.id === m.messageId))
        .map((m) => m.messageId),
      outside: be.outside,
      outsiders: list.filter(outsider).map((m) => m.internetMessageId ?? ''),
      outsidePending: false,
      lists,
      unsubSenders: new Map(),
    };
  }, 120_000);

  afterAll(async () => {
    await be.close();
  });

  // `npm test` runs 40 runs of at most 25 commands on each mailbox; `npm run trials` runs batches of MODEL_RUNS until
  // ≥ 100,000 steps in all (bench/model-trials.ts). Every run prints its seed; a failure also prints fast-check's path: FC_SEED=<seed> FC_PATH=<path>
  // replays exactly that counterexample, which then belongs in this file as a test of its own.
  it(
    'never breaks the VIP, lease, sending, unsubscribe and undo rules, whatever two agents do (one of them obeying injected text)',
    async () => {
      const given = process.env['FC_SEED'];
      const path = process.env['FC_PATH'];
      const runs = Number(process.env['MODEL_RUNS'] ?? 40);
      // The runs must reach the interesting answers (a test that never gets there cannot fail). Which ones a batch
      // reaches depends on its seed: one batch of 40 runs once missed an outcome (seed 2092727153 on Dovecot: no
      // unapproved unsubscribe among 31). So a batch that missed one is followed by another with the next seed, up
      // to three more; only an outcome no batch reaches fails the test.
      const wanted = [
        'begin:ok',
        'begin:lease_held',
        'single:ok',
        'single:vip_confirmation_required',
        'single:lease_held',
        'act:ok',
        'act:vip_skipped',
        'act:lease_held',
        'undo:ok',
        'undo:reused_refused',
        'send:ok',
        'send:approval_invalid',
        'send:approval_used',
        'send:send_disabled',
        'send:human_approval_required',
        'propose:ok',
        'unsub:ok',
        'unsub:approval_invalid',
        'unsub:approval_used',
        'unsub:human_approval_required',
        'inApp:ok',
        'inApp:human_approval_required',
        'dropVip:vip_confirmation_required',
      ];
      const missing = () => wanted.filter((key) => (env.outcomes.get(key) ?? 0) === 0);
      const first = Number(given ?? Math.floor(Math.random() * 2 ** 31));
      for (let batch = 0; batch < (given === undefined ? 4 : 1); batch++) {
        const seed = (first + batch) % 2 ** 31;
        const before = stepsRun;
        console.log(`model: seed ${String(seed)}, ${String(runs)} runs`);
        await fc.assert(
          fc.asyncProperty(
            fc.boolean(),
            fc.commands(commands, { maxCommands: 25, size: 'max' }),
            async (sendEnabled, cmds) => {
              // Each run starts with sending on or off (as the person set it), so both get their share of runs.
              const set = await env.agents.A('set_send_enabled', {
                enabled: sendEnabled,
                humanConfirmedInChat: true,
              });
              expect(set.isError).toBe(false);
              await fc.asyncModelRun(async () => ({ model: await readWorld(env), real: env }), cmds);
            },
          ),
          { numRuns: runs, seed, ...(path !== undefined && { path }) },
        );
        console.log(
          `model: seed ${String(seed)}, ${String(runs)} runs, ${String(stepsRun - before)} steps, no rule broken` +
            (env.outside === undefined
              ? ''
              : ` (another client's changes so far: ${String(env.outcomes.get('outside') ?? 0)}, caught up with by a sync_inbox: ${String(env.outcomes.get('converged') ?? 0)})`),
        );
        if (missing().length === 0) break;
        console.log(`model: not reached yet: ${missing().join(', ')}`);
      }
      const seen = Object.fromEntries([...env.outcomes].sort());
      for (const key of wanted)
        expect(seen[key] ?? 0, `outcome ${key} never came up: ${JSON.stringify(seen)}`).toBeGreaterThan(0);
    },
    // Room for a second batch under load (two took 240 s on Gmail on PostgreSQL with the machine busy).
    Number(process.env['MODEL_TIMEOUT_MS'] ?? 600_000),
  );

  // Two races, each tried with one call started a few microtasks after the other (either way round), so that the
  // test does not depend on one exact interleaving.
  const OFFSETS = [-8, -4, -1, 0, 1, 4, 8];
  const after = async <T>(ticks: number, f: () => Promise<T>) => {
    for (let i = 0; i < ticks; i++) await Promise.resolve();
    return f();
  };
  /** Runs a(), b() with b started `offset` microtasks after a (a after b when negative). */
  const race = <T>(offset: number, a: () => Promise<T>, b: () => Promise<T>) =>
    Promise.all([after(Math.max(0, -offset), a), after(Math.max(0, offset), b)]);
  const spare = () => {
    const id = env.spare.shift();
    if (id === undefined) throw new Error('no spare message left');
    return id;
  };
  const answer = (r: ToolResult) => (typeof r.body['error'] === 'string' ? r.body['error'] : 'ok');
  /** Where the mailbox itself holds copies of a message (by Message-ID), folder paths. */
  const copiesOf = async (messageId: string) => {
    const m = await env.app.stores.messages.get(env.inboxId as InboxId, messageId as MessageId);
    return (await env.mailbox())
      .filter((r) => r.messageId !== undefined && r.messageId === m?.internetMessageId)
      .map((r) => be.placeName(r.path));
  };

  it('keeps one copy of a message, where the index says, when both agents move it at the same moment', async () => {
    env.clock.advance(LEASE_MS + 1); // whatever lease the property left has lapsed: both may change mail
    const folders = new Map(
      (await env.app.stores.folders.list(env.inboxId as InboxId)).map((f) => [
        f.id as string,
        be.placeName(f.path),
      ]),
    );
    const outcomes: string[] = [];
    for (const ticks of OFFSETS) {
      const second = ticks % 2 === 0 ? 'trash' : 'archive';
      const messageId = spare();
      const item = { inboxId: env.inboxId, messageId };
      const [ra, rb] = await race(
        ticks,
        () => env.agents.A('trash_message', item),
        () => env.agents.B('act_on_messages', { action: second, items: [item] }),
      );
      expect([ra.body['error'], rb.body['error']]).toEqual([undefined, undefined]);
      const movedBy = [ra, rb].filter((r) => ids(r.body['changed']).includes(messageId)).length;
      const undoHandles = [ra, rb].filter((r) => typeof r.body['undoId'] === 'string').length;
      const indexed = await env.app.stores.messages.get(env.inboxId as InboxId, messageId as MessageId);
      const copies = await copiesOf(messageId);
      outcomes.push(
        `A trash ‖ B ${second} (offset ${String(ticks)}): moved by ${String(movedBy)}, ${String(undoHandles)} undo handle(s), copies in ${copies.join(' + ')}, index says ${folders.get(indexed?.folderId ?? '') ?? '?'}`,
      );
    }
    // One copy, in the folder the index names; every call that moved it holds an undo handle for that move. Two
    // trash calls move it once (the second finds it already there); trash and archive both move it, one after
    // the other.
    // Trash then archive may land in either folder (whichever call went second), but copy and index agree.
    const expected = OFFSETS.map((ticks, i) => {
      if (ticks % 2 === 0) {
        return `A trash ‖ B trash (offset ${String(ticks)}): moved by 1, 1 undo handle(s), copies in Trash, index says Trash`;
      }
      const said = / index says (\w+)$/.exec(outcomes[i] ?? '')?.[1];
      const where = said === 'Trash' || said === 'Archive' ? said : 'Trash or Archive';
      return `A trash ‖ B archive (offset ${String(ticks)}): moved by 2, 2 undo handle(s), copies in ${where}, index says ${where}`;
    });
    expect(outcomes).toEqual(expected);
  });

  // The seed-332680892 run (a fresh clone, plain IMAP4rev1): two wrong codes at once at the fourth wrong try ended
  // at six attempts, where either order gives five — the second is refused as locked, uncounted.
  /** Sending on and approval in chat allowed, as the person may set them (the property may have left either off). */
  const letChatApprove = async () => {
    expect(
      (await env.agents.A('set_send_enabled', { enabled: true, humanConfirmedInChat: true })).isError,
    ).toBe(false);
    await env.person.get('/settings/preferences');
    await env.person.post('/settings/preferences/confirm-in-app', { required: 'off' });
  };
  /** A draft agent A wrote, with its pending send's id and approval code. */
  const draftToSend = async (subject: string) => {
    const made = await env.agents.A('create_draft', {
      inboxId: env.inboxId,
      to: RECIPIENTS[0],
      subject,
      text: 'x',
    });
    return {
      pendingSendId: made.body['pendingSendId'] as string,
      approvalCode: made.body['approvalCode'] as string,
    };
  };

  it('counts two wrong approval codes at once at the last try as one after the other would: locked at five', async () => {
    await letChatApprove();
    const outcomes: string[] = [];
    for (const ticks of OFFSETS) {
      const { pendingSendId, approvalCode } = await draftToSend('Locked at five');
      const wrong = (agent: Agent, code: string) => () =>
        env.agents[agent]('send_draft', { pendingSendId, approvalCode: code, humanApprovedInChat: true });
      for (let i = 0; i < MAX_WRONG_CODES - 1; i++) await wrong('A', `wrong-${String(i)}`)();
      const [ra, rb] = await race(ticks, wrong('A', 'wrong-a'), wrong('B', 'wrong-b'));
      const row = await env.app.db.kysely
        .selectFrom('pending_sends')
        .select(['status', 'attempts'])
        .where('id', '=', pendingSendId)
        .executeTakeFirstOrThrow();
      const after = await wrong('B', approvalCode)();
      outcomes.push(
        `(offset ${String(ticks)}) ${answer(ra)} ‖ ${answer(rb)}: ${row.status} after ${String(row.attempts)}; its own code then: ${answer(after)}`,
      );
    }
    expect(outcomes).toEqual(
      OFFSETS.map(
        (ticks) =>
          `(offset ${String(ticks)}) approval_invalid ‖ approval_invalid: locked after 5; its own code then: approval_invalid`,
      ),
    );
  });

  // The seed-93485967 run (demo inbox, each agent on a PostgreSQL node): of two calls with the same right code, the
  // one that lost was told approval_invalid ("the draft changed") — it read the approval before the other sent the
  // draft, and the draft after. Either order says approval_used.
  it('tells the loser of two sends with the same approval at once that it was used, not that it is invalid', async () => {
    await letChatApprove();
    const args = { ...(await draftToSend('Sent once')), humanApprovedInChat: true };
    // A's call is held between reading the approval and reading the draft — the window the run hit by chance —
    // while B's call sends; then A goes on.
    const hold = holdFirst(env.app.stores.drafts, 'get');
    try {
      const a = env.agents.A('send_draft', args);
      await hold.reached;
      const b = await env.agents.B('send_draft', args);
      hold.open();
      expect([answer(await a), answer(b)]).toEqual(['approval_used', 'ok']);
    } finally {
      hold.open();
      hold.restore();
    }
  });

  /**
   * Holds the first `method` call on `store` until `gate` opens (a window a run may hit by chance), then lets it go
   * on; `reached` resolves when it is held. Undone by `restore`.
   */
  function holdFirst<S extends object>(store: S, method: keyof S) {
    const real = (store[method] as (...a: unknown[]) => unknown).bind(store);
    let held: (() => void) | undefined;
    const reached = new Promise<void>((r) => (held = r));
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    (store as Record<keyof S, unknown>)[method] = async (...a: unknown[]) => {
      const first = held;
      held = undefined;
      if (first !== undefined) {
        first();
        await gate;
      }
      return real(...a);
    };
    return { reached, open, restore: () => ((store as Record<keyof S, unknown>)[method] = real) };
  }

  // What a right code meets when wrong codes lock its approval between its check and its claim: refused as it would
  // be after them (approval_invalid, locked), not told the approval was used.
  it('refuses a right code whose approval wrong codes locked while it was being redeemed, as locked', async () => {
    await letChatApprove();
    const made = await draftToSend('Locked meanwhile');
    const proposed = await env.agents.A('propose_unsubscribe', {
      inboxId: env.inboxId,
      messageId: env.lists[0],
    });
    expect(proposed.isError, JSON.stringify(proposed.body)).toBe(false);
    const cases = [
      {
        store: env.app.stores.pendingSends,
        call: (code: string) =>
          env.agents.A('send_draft', {
            pendingSendId: made.pendingSendId,
            approvalCode: code,
            humanApprovedInChat: true,
          }),
        code: made.approvalCode,
      },
      {
        store: env.app.stores.pendingUnsubscribes,
        call: (code: string) =>
          env.agents.A('confirm_unsubscribe', {
            pendingUnsubscribeId: proposed.body['pendingUnsubscribeId'],
            approvalCode: code,
            humanApprovedInChat: true,
          }),
        code: proposed.body['approvalCode'] as string,
      },
    ];
    const answers: string[] = [];
    for (const c of cases) {
      const hold = holdFirst(c.store, 'claim');
      try {
        const right = c.call(c.code);
        await hold.reached;
        for (let i = 0; i < MAX_WRONG_CODES; i++) await c.call(`wrong-${String(i)}`);
        hold.open();
        answers.push(answer(await right));
      } finally {
        hold.open();
        hold.restore();
      }
    }
    expect(answers).toEqual(['approval_invalid', 'approval_invalid']);
  });

  it('does not refuse the lease holder’s undo because the other agent tried the same handle at that moment', async () => {
    env.clock.advance(LEASE_MS + 1); // whatever lease the property left has lapsed
    expect(
      (await env.agents.B('begin_triage', { inboxId: env.inboxId, agentLabel: 'race-holder' })).isError,
    ).toBe(false);
    const outcomes: string[] = [];
    for (const ticks of OFFSETS) {
      const messageId = spare();
      const trashed = await env.agents.B('trash_message', { inboxId: env.inboxId, messageId });
      const undoId = trashed.body['undoId'] as string;
      const [ra, rb] = await race(
        ticks,
        () => env.agents.A('undo_action', { undoId }),
        () => env.agents.B('undo_action', { undoId }),
      );
      const again = rb.isError ? await env.agents.B('undo_action', { undoId }) : undefined;
      outcomes.push(
        `(offset ${String(ticks)}) A: ${answer(ra)}, B (holds the lease): ${answer(rb)}` +
          (again === undefined ? '' : `, B again: ${answer(again)}`),
      );
    }
    await env.agents.B('end_triage', { inboxId: env.inboxId, agentLabel: 'race-holder' });
    // A is refused (B's lease, or B already undid it); B's undo goes through on its first call.
    const expected = OFFSETS.map((ticks, i) => {
      const a = /^\(offset -?\d+\) A: (\w+),/.exec(outcomes[i] ?? '')?.[1];
      const refusal = a === 'lease_held' || a === 'undo_unavailable' ? a : 'lease_held or undo_unavailable';
      return `(offset ${String(ticks)}) A: ${refusal}, B (holds the lease): ok`;
    });
    expect(outcomes).toEqual(expected);
  });
});
