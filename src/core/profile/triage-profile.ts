import { reaches, type InboxReach } from '../auth/inbox-reach.ts';
import * as z from 'zod';
import { EMAIL_PATTERN } from '../accounts/password-hasher.ts';
import { addressKey, domainKey } from '../messages/address-key.ts';

const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
/**
 * A bare, lower-case ASCII domain such as example.com, or an internationalised one in its ASCII form (`xn--…`, its
 * top-level domain too: `.xn--p1ai` is .рф); shared with the VIP list. Test a person's spelling by its domainKey.
 */
export const DOMAIN_PATTERN =
  /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

/** The profile's screening lists, each held by the defaults and by any inbox override that has its own. */
export type ScreeningList = 'knownGoodSenders' | 'blockedSenders' | 'blockedDomains';

/** How many entries each screening list may hold (the schema's limits). */
export const SCREENING_LIST_MAX: Readonly<Record<ScreeningList, number>> = {
  knownGoodSenders: 5000,
  blockedSenders: 5000,
  blockedDomains: 1000,
};

/** Preferences that apply to all inboxes (`defaults`) and can be overridden per inbox. */
export const TRIAGE_PREFS = z.strictObject({
  cadence: z.strictObject({
    /** Minimum time between triage passes; a pass asked for sooner (without force) is answered `too_soon`. Null: no limit. */
    everyHours: z
      .number()
      .min(0.25)
      .max(24 * 14)
      .nullable(),
  }),
  quietHours: z
    .strictObject({
      start: z.string().regex(TIME, 'expected HH:MM'),
      end: z.string().regex(TIME, 'expected HH:MM'),
      timezone: z.string().refine(isTimeZone, 'expected an IANA time zone such as Europe/Berlin'),
    })
    .nullable(),
  junk: z.strictObject({
    /** Screen mail from senders who are neither VIP nor known-good. */
    screenUnknownSenders: z.boolean(),
    /** Mail from these domains (and their subdomains) is moved to Screened by the sync. `müller.de` as written. */
    blockedDomains: z
      .array(
        z
          .string()
          .max(253)
          .toLowerCase()
          .refine((d) => DOMAIN_PATTERN.test(domainKey(d)), 'expected a bare domain such as example.com'),
      )
      .max(SCREENING_LIST_MAX.blockedDomains),
    /** Single addresses blocked the same way (a reported sender at a free-mail domain). */
    blockedSenders: z
      .array(z.string().toLowerCase().regex(EMAIL_PATTERN, 'expected an email address'))
      .max(SCREENING_LIST_MAX.blockedSenders),
    knownGoodSenders: z
      .array(z.string().toLowerCase().regex(EMAIL_PATTERN, 'expected an email address'))
      .max(SCREENING_LIST_MAX.knownGoodSenders),
    /** Extra guidance for the screening rubric, in the person's words. */
    notes: z.string().max(2000),
  }),
  vip: z.strictObject({
    /** Addresses or bare domains that always get a human look, besides the VIP list. */
    people: z.array(z.string().toLowerCase().max(254)).max(500),
  }),
  sending: z.strictObject({
    /** Refuse approve-in-chat: every send and unsubscribe must be confirmed by the person in the app. */
    requireInAppConfirmation: z.boolean(),
  }),
});

export type TriagePrefs = z.output<typeof TRIAGE_PREFS>;

export const INBOX_OVERRIDE = z.strictObject({
  cadence: TRIAGE_PREFS.shape.cadence.partial().optional(),
  quietHours: TRIAGE_PREFS.shape.quietHours.optional(),
  junk: TRIAGE_PREFS.shape.junk.partial().optional(),
  vip: TRIAGE_PREFS.shape.vip.partial().optional(),
  sending: TRIAGE_PREFS.shape.sending.partial().optional(),
});

export type InboxOverride = z.output<typeof INBOX_OVERRIDE>;

export const TRIAGE_PROFILE = z.strictObject({
  defaults: TRIAGE_PREFS,
  inboxes: z.record(
    z.string().regex(/^inbox_[a-z0-9]{20}$/, 'expected an inbox id (inbox_ and 20 letters or digits)'),
    INBOX_OVERRIDE,
  ),
});

export type TriageProfile = z.output<typeof TRIAGE_PROFILE>;

export const DEFAULT_PROFILE: TriageProfile = {
  defaults: {
    cadence: { everyHours: 4 },
    quietHours: null,
    junk: {
      screenUnknownSenders: true,
      blockedDomains: [],
      blockedSenders: [],
      knownGoodSenders: [],
      notes: '',
    },
    vip: { people: [] },
    sending: { requireInAppConfirmation: false },
  },
  inboxes: {},
};

/** The profile as an agent reaching `reach` reads it: other inboxes' overrides left out (decision 0142). */
export function profileWithin(profile: TriageProfile, reach: InboxReach): TriageProfile {
  if (reach === null) return profile;
  return {
    ...profile,
    inboxes: Object.fromEntries(Object.entries(profile.inboxes).filter(([id]) => reaches(reach, id))),
  };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** RFC 7396-like merge: objects merge recursively, arrays and scalars replace, `null` sets null. */
export function deepMerge(base: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    typeof base === 'object' && base !== null && !Array.isArray(base)
      ? { ...(base as Record<string, Json>) }
      : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    // defineProperty, not assignment: a key named __proto__ stays an own (and so unknown, refused) field instead of
    // replacing the object's prototype.
    Object.defineProperty(out, k, {
      value: deepMerge(Object.hasOwn(out, k) ? out[k] : undefined, v),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/**
 * The profile with one screening list changed wherever it is kept (decision 0116): in the defaults and in every inbox
 * override that holds its own copy, which replaces the defaults' list for that inbox. A sender the person rescues or
 * reports, or takes off a list, is then known-good, blocked or gone in every inbox — not only in those that follow
 * the defaults.
 */
export function changeScreeningList(
  p: TriageProfile,
  list: ScreeningList,
  change: (entries: readonly string[]) => string[],
): TriageProfile {
  return {
    defaults: { ...p.defaults, junk: { ...p.defaults.junk, [list]: change(p.defaults.junk[list]) } },
    inboxes: Object.fromEntries(
      Object.entries(p.inboxes).map(([id, o]) => {
        const own = o.junk?.[list];
        return [id, own === undefined ? o : { ...o, junk: { ...o.junk, [list]: change(own) } }];
      }),
    ),
  };
}

/**
 * The profile with one screening list changed for one inbox only (decision 0143): its override's own copy, made from
 * the defaults' list when it has none, so the change reaches that inbox and no other. What an agent limited to some
 * inboxes teaches by a rescue or a report.
 */
export function changeInboxScreeningList(
  p: TriageProfile,
  inboxId: string,
  list: ScreeningList,
  change: (entries: readonly string[]) => string[],
): TriageProfile {
  const o = p.inboxes[inboxId] ?? {};
  const own = o.junk?.[list] ?? p.defaults.junk[list];
  return { ...p, inboxes: { ...p.inboxes, [inboxId]: { ...o, junk: { ...o.junk, [list]: change(own) } } } };
}

/**
 * Whether an agent reaching `reach` may make this patch (decision 0143): one that reaches every inbox may make any;
 * one limited to some may change only those inboxes' overrides — the defaults are every inbox's, another inbox's
 * override is not its to see. The patch is an agent's, not yet validated: anything but an object passes here and is
 * refused by the schema.
 */
export function patchWithin(patch: unknown, reach: InboxReach): boolean {
  if (reach === null || typeof patch !== 'object' || patch === null) return true;
  return Object.entries(patch as Record<string, unknown>).every(([key, value]) => {
    if (key === 'defaults') return false;
    if (key !== 'inboxes' || typeof value !== 'object' || value === null) return true;
    return Object.keys(value).every((id) => reaches(reach, id));
  });
}

/**
 * An inbox's own triage settings — those the console's Triage form sets for every inbox: the cadence, quiet hours
 * (null: none, in place of the defaults' hours), screening unknown senders and the guidance for it — or undefined
 * when the inbox follows the defaults in all of them. An agent may have set them (0143), and the person sees them.
 */
export interface OwnTriage {
  readonly everyHours?: number | null;
  readonly quietHours?: TriagePrefs['quietHours'];
  readonly screenUnknownSenders?: boolean;
  readonly notes?: string;
}

export function ownTriage(o: InboxOverride): OwnTriage | undefined {
  const own: OwnTriage = {
    ...(o.cadence?.everyHours !== undefined && { everyHours: o.cadence.everyHours }),
    ...(o.quietHours !== undefined && { quietHours: o.quietHours }),
    ...(o.junk?.screenUnknownSenders !== undefined && { screenUnknownSenders: o.junk.screenUnknownSenders }),
    ...(o.junk?.notes !== undefined && { notes: o.junk.notes }),
  };
  return Object.keys(own).length === 0 ? undefined : own;
}

/**
 * What of an inbox's own the person can hand back to the defaults in one go: its triage settings (`ownTriage`), or
 * its screening lists. VIP people and confirming in the app have their own controls.
 */
export type OwnPart = 'triage' | 'lists';

/**
 * The profile with one part of an inbox's override dropped, so that the inbox follows the defaults in it; the rest
 * of the override stays, and an override left with nothing is dropped.
 */
export function withoutOwn(p: TriageProfile, inboxId: string, part: OwnPart): TriageProfile {
  const o = p.inboxes[inboxId];
  if (o === undefined) return p;
  const { cadence, quietHours, junk, ...rest } = o;
  const { screenUnknownSenders, notes, knownGoodSenders, blockedSenders, blockedDomains } = junk ?? {};
  const keptJunk = definedOnly(
    part === 'triage'
      ? { knownGoodSenders, blockedSenders, blockedDomains }
      : { screenUnknownSenders, notes },
  );
  const kept = definedOnly({ ...rest, ...(part === 'lists' && { cadence, quietHours }), junk: keptJunk });
  const inboxes = Object.fromEntries(Object.entries(p.inboxes).filter(([id]) => id !== inboxId));
  return { ...p, inboxes: kept === undefined ? inboxes : { ...inboxes, [inboxId]: kept } };
}

/** The object's fields that are not undefined, or undefined when none is. */
function definedOnly(o: object): Record<string, unknown> | undefined {
  const kept = Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  return Object.keys(kept).length === 0 ? undefined : kept;
}

/** A screening list's entry as the screening rules compare it: an address by its addressKey, a domain by its domainKey. */
export function screeningEntryKey(list: ScreeningList, entry: string): string {
  return list === 'blockedDomains' ? domainKey(entry.trim().toLowerCase()) : addressKey(entry.trim());
}

/** Defaults with one inbox's override merged in. */
export function effectivePrefs(profile: TriageProfile, inboxId: string): TriagePrefs {
  const override = profile.inboxes[inboxId];
  return override === undefined ? profile.defaults : (deepMerge(profile.defaults, override) as TriagePrefs);
}

/** What a new profile takes away from the person's safeguards, against the one it replaces (decision 0102). */
export interface Loosening {
  /** Where approval in chat would count again: `defaults` and the inbox ids whose effective setting goes off. */
  readonly inAppConfirmationOff: readonly string[];
  /** VIP people, as the old profile spells them, that no longer cover the defaults or some inbox. */
  readonly vipPeopleDropped: readonly string[];
}

/** The form the VIP rule compares an entry in; an entry that is neither an address nor a bare domain protects nobody. */
function vipPersonKey(p: string): string | undefined {
  const v = p.trim();
  if (v.includes('@')) return EMAIL_PATTERN.test(v) ? `@${addressKey(v)}` : undefined;
  const d = domainKey(v);
  return DOMAIN_PATTERN.test(d) ? d : undefined;
}

/** An address or a bare domain, as the VIP rule can use it. */
export const isVipPerson = (p: string): boolean => vipPersonKey(p) !== undefined;

/**
 * Compares the defaults and every inbox either profile has an override for (an inbox without one follows the
 * defaults): a setting turned off or a VIP entry gone anywhere counts, even when the patch touched another scope.
 */
export function loosening(before: TriageProfile, after: TriageProfile): Loosening {
  const scopes = ['defaults', ...new Set([...Object.keys(before.inboxes), ...Object.keys(after.inboxes)])];
  const prefs = (p: TriageProfile, scope: string) =>
    scope === 'defaults' ? p.defaults : effectivePrefs(p, scope);
  const inAppConfirmationOff: string[] = [];
  const dropped = new Map<string, string>();
  for (const scope of scopes) {
    const [was, now] = [prefs(before, scope), prefs(after, scope)];
    if (was.sending.requireInAppConfirmation && !now.sending.requireInAppConfirmation)
      inAppConfirmationOff.push(scope);
    const kept = new Set(now.vip.people.map(vipPersonKey));
    for (const p of was.vip.people) {
      const key = vipPersonKey(p);
      if (key !== undefined && !kept.has(key) && !dropped.has(key)) dropped.set(key, p.trim());
    }
  }
  return { inAppConfirmationOff, vipPeopleDropped: [...dropped.values()] };
}
