import type { Clock } from '../../lib/clock.ts';
import { err, ok, type Result } from '../../lib/result.ts';
import type { AccountId } from '../accounts/account.ts';
import type { Reach } from '../auth/inbox-reach.ts';
import { normaliseEmail } from '../accounts/password-hasher.ts';
import { addressKey, domainKey } from '../messages/address-key.ts';
import type { ProfileService } from '../profile/profile-service.ts';
import { DOMAIN_PATTERN, profileWithin, type TriageProfile } from '../profile/triage-profile.ts';
import type { VipEntry, VipStore } from './vip-store.ts';

/** How many entries the account's VIP list may hold. */
export const VIP_LIST_MAX = 1000;

/** An add the VIP list has no room for. */
export interface VipListFull {
  readonly code: 'invalid_arguments';
  readonly message: string;
}

export interface VipInput {
  readonly emails?: readonly string[] | undefined;
  readonly domains?: readonly string[] | undefined;
}

/** The account-wide VIP list: addresses and bare domains whose mail always gets a human look. */
export class VipService {
  private readonly deps: { vips: VipStore; profiles: ProfileService; clock: Clock };
  constructor(deps: { vips: VipStore; profiles: ProfileService; clock: Clock }) {
    this.deps = deps;
  }

  /**
   * Normalises input (lower case, `@` and dots trimmed from domains); invalid entries are reported, not guessed. A
   * domain is kept as the person wrote it (`müller.de`) and checked in its ASCII form (decision 0070).
   */
  parse(input: VipInput): { entries: VipEntry[]; invalid: string[] } {
    const entries: VipEntry[] = [];
    const invalid: string[] = [];
    for (const raw of input.emails ?? []) {
      const e = normaliseEmail(raw);
      if (e === undefined) invalid.push(raw);
      else entries.push({ kind: 'email', value: e });
    }
    for (const raw of input.domains ?? []) {
      const d = raw.trim().toLowerCase().replace(/^@/, '').replace(/\.$/, '');
      if (!DOMAIN_PATTERN.test(domainKey(d))) invalid.push(raw);
      else entries.push({ kind: 'domain', value: d });
    }
    return { entries, invalid };
  }

  /** The VIP list alone (the profile's `vip.people` apply per inbox: `matcher`). */
  list(accountId: AccountId): Promise<VipEntry[]> {
    return this.deps.vips.list(accountId);
  }

  /**
   * Every VIP the person has, once each: the list, then the profile's `vip.people` of the defaults and of every
   * inbox's override — what agents and the console are shown, and what a removal can take off (decision 0102). For
   * an agent limited to some inboxes, the overrides of the others are left out, as from the profile it reads (0143).
   */
  async everyone(who: Reach): Promise<VipEntry[]> {
    const [listed, profile] = await Promise.all([
      this.deps.vips.list(who.accountId),
      this.deps.profiles.get(who.accountId),
    ]);
    return this.allOf(listed, profileWithin(profile, who.inboxes));
  }

  /** The list's entries, then the profile's, once each in the VIP rule's form. */
  private allOf(listed: readonly VipEntry[], profile: TriageProfile): VipEntry[] {
    const people = [profile.defaults, ...Object.values(profile.inboxes)].flatMap((p) => p.vip?.people ?? []);
    const seen = new Set<string>();
    const out: VipEntry[] = [];
    for (const e of [...listed, ...people.flatMap((p) => this.parse(asInput(p)).entries)]) {
      const k = entryKey(e);
      if (!seen.has(k)) {
        seen.add(k);
        out.push(e);
      }
    }
    return out;
  }

  /**
   * `everyone`, each with the inboxes it counts for: all of them for the VIP list; for a profile entry, those whose
   * `vip.people` holds it — an inbox's own list replaces the defaults' (what the console shows beside each VIP).
   */
  async everyoneWithReach(
    accountId: AccountId,
    inboxIds: readonly string[],
  ): Promise<{ readonly entry: VipEntry; readonly inboxIds: readonly string[] }[]> {
    const [listed, profile] = await Promise.all([
      this.deps.vips.list(accountId),
      this.deps.profiles.get(accountId),
    ]);
    const entries = this.allOf(listed, profile);
    const everywhere = new Set(listed.map(entryKey));
    const peopleOf = (inboxId: string) =>
      new Set(
        (profile.inboxes[inboxId]?.vip?.people ?? profile.defaults.vip.people).flatMap((p) =>
          this.parse(asInput(p)).entries.map(entryKey),
        ),
      );
    const byInbox = inboxIds.map((id) => ({ id, people: peopleOf(id) }));
    return entries.map((entry) => {
      const k = entryKey(entry);
      return {
        entry,
        inboxIds: everywhere.has(k) ? [...inboxIds] : byInbox.filter((i) => i.people.has(k)).map((i) => i.id),
      };
    });
  }

  /**
   * Adds entries to the VIP list, or none of them when it would then hold more than `VIP_LIST_MAX` (decision 0119):
   * every action and every sync reads the whole list, so an agent adding in a loop must meet an end.
   */
  async add(accountId: AccountId, entries: readonly VipEntry[]): Promise<Result<true, VipListFull>> {
    const added = await this.deps.vips.add(accountId, entries, this.deps.clock.now(), VIP_LIST_MAX);
    if (added.ok) return ok(true);
    return err({
      code: 'invalid_arguments',
      message: `The VIP list holds at most ${String(VIP_LIST_MAX)} entries and has ${String(added.error.listed)}; nothing was added. A domain covers everyone at it; removing entries makes room.`,
    });
  }

  /** Takes the entries off the list and off every `vip.people` of the profile: a VIP removed is gone everywhere. */
  async remove(accountId: AccountId, entries: readonly VipEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.deps.vips.remove(accountId, entries);
    const gone = new Set(entries.map(entryKey));
    const stays = (people: readonly string[]) =>
      people.filter((p) => !this.parse(asInput(p)).entries.some((e) => gone.has(entryKey(e))));
    const saved = await this.deps.profiles.amend(accountId, (p) => ({
      defaults: { ...p.defaults, vip: { people: stays(p.defaults.vip.people) } },
      inboxes: Object.fromEntries(
        Object.entries(p.inboxes).map(([id, o]) => [
          id,
          o.vip?.people === undefined ? o : { ...o, vip: { ...o.vip, people: stays(o.vip.people) } },
        ]),
      ),
    }));
    // Removing entries from a profile that parsed cannot make it invalid; say so loudly if it ever does.
    if (!saved.ok) throw new Error(`VIP removal refused by the profile: ${saved.error.message}`);
  }

  /**
   * One inbox's VIPs: the account's VIP list plus the inbox's effective `vip.people`, as addresses (by addressKey) and
   * bare domains (by domainKey, each covering its subdomains).
   */
  async entries(
    accountId: AccountId,
    inboxId: string,
  ): Promise<{ readonly emails: readonly string[]; readonly domains: readonly string[] }> {
    const list = await this.deps.vips.list(accountId);
    const prefs = await this.deps.profiles.effective(accountId, inboxId);
    // Both sides in one form: an address copied from a mail client matches the header's Punycode spelling of it.
    return {
      emails: [
        ...list.filter((v) => v.kind === 'email').map((v) => v.value),
        ...prefs.vip.people.filter((p) => p.includes('@')),
      ].map(addressKey),
      domains: [
        ...list.filter((v) => v.kind === 'domain').map((v) => v.value),
        ...prefs.vip.people.filter((p) => !p.includes('@')),
      ].map(domainKey),
    };
  }

  /** A matcher for one inbox's VIPs (`entries`). */
  async matcher(accountId: AccountId, inboxId: string): Promise<(address: string) => boolean> {
    return vipMatcher(await this.entries(accountId, inboxId));
  }
}

/** Whether an address is one of these VIPs (`VipService.entries`): the address itself, or its domain or one above it. */
export function vipMatcher(vips: {
  readonly emails: readonly string[];
  readonly domains: readonly string[];
}): (address: string) => boolean {
  const emails = new Set(vips.emails);
  const { domains } = vips;
  return (address) => {
    const a = addressKey(address);
    if (emails.has(a)) return true;
    const domain = a.slice(a.lastIndexOf('@') + 1);
    // A bare domain covers its subdomains too: mail.example.com is example.com's.
    return domains.some((d) => domain === d || domain.endsWith(`.${d}`));
  };
}

/** One profile entry as the tools' input: an address has an `@`, anything else is a domain. */
const asInput = (p: string): VipInput => (p.includes('@') ? { emails: [p] } : { domains: [p] });

/** The form the VIP rule compares two spellings of one entry in (decision 0070). */
const entryKey = (e: VipEntry) => (e.kind === 'email' ? `@${addressKey(e.value)}` : domainKey(e.value));
