import type { Clock } from '../../lib/clock.ts';
import type { AccountId } from '../accounts/account.ts';
import { normaliseEmail } from '../accounts/password-hasher.ts';
import { addressKey, domainKey } from '../messages/address-key.ts';
import type { ProfileService } from '../profile/profile-service.ts';
import { DOMAIN_PATTERN } from '../profile/triage-profile.ts';
import type { VipEntry, VipStore } from './vip-store.ts';

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

  list(accountId: AccountId): Promise<VipEntry[]> {
    return this.deps.vips.list(accountId);
  }

  add(accountId: AccountId, entries: readonly VipEntry[]): Promise<void> {
    return this.deps.vips.add(accountId, entries, this.deps.clock.now());
  }

  remove(accountId: AccountId, entries: readonly VipEntry[]): Promise<number> {
    return this.deps.vips.remove(accountId, entries);
  }

  /** A matcher for one inbox: the account's VIP list plus the inbox's effective `vip.people` (addresses or domains). */
  async matcher(accountId: AccountId, inboxId: string): Promise<(address: string) => boolean> {
    const list = await this.deps.vips.list(accountId);
    const prefs = await this.deps.profiles.effective(accountId, inboxId);
    // Both sides in one form: an address copied from a mail client matches the header's Punycode spelling of it.
    const emails = new Set(
      [
        ...list.filter((v) => v.kind === 'email').map((v) => v.value),
        ...prefs.vip.people.filter((p) => p.includes('@')),
      ].map(addressKey),
    );
    const domains = [
      ...list.filter((v) => v.kind === 'domain').map((v) => v.value),
      ...prefs.vip.people.filter((p) => !p.includes('@')),
    ].map(domainKey);
    return (address) => {
      const a = addressKey(address);
      if (emails.has(a)) return true;
      const domain = a.slice(a.lastIndexOf('@') + 1);
      // A bare domain covers its subdomains too: mail.example.com is example.com's.
      return domains.some((d) => domain === d || domain.endsWith(`.${d}`));
    };
  }
}
