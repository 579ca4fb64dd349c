import { Resolver } from 'node:dns/promises';
import type { MailExchangeLookup } from '../../core/inboxes/provider-detection.ts';

export interface DnsMailExchangesOptions {
  /** DNS servers to ask (`host:port`); the system's when absent. */
  readonly servers?: readonly string[];
  /** How long one lookup may take in all before it counts as no answer. */
  readonly deadlineMs?: number;
}

/**
 * A domain's MX hosts from DNS, most preferred first, for telling which service handles a custom domain's mail.
 * Never fails: no records, no such domain, a refusal or no answer within the deadline is none — the caller then
 * keeps its guess from the address, and a slow resolver costs a proposal at most the deadline.
 */
export class DnsMailExchanges implements MailExchangeLookup {
  private readonly servers: readonly string[] | undefined;
  private readonly deadlineMs: number;

  constructor(opts: DnsMailExchangesOptions = {}) {
    this.servers = opts.servers;
    this.deadlineMs = opts.deadlineMs ?? 2000;
  }

  async exchangesOf(domain: string): Promise<readonly string[]> {
    // One resolver a lookup: ending it at the deadline (`cancel`) must not end another caller's.
    const resolver = new Resolver({ timeout: Math.ceil(this.deadlineMs / 2), tries: 2 });
    if (this.servers !== undefined) resolver.setServers([...this.servers]);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        resolver.cancel();
        reject(new Error('no answer in time'));
      }, this.deadlineMs);
    });
    try {
      const records = await Promise.race([resolver.resolveMx(domain), deadline]);
      return records
        .filter((r) => r.exchange !== '')
        .sort((a, b) => a.priority - b.priority)
        .map((r) => r.exchange.toLowerCase().replace(/\.$/, ''));
    } catch {
      return [];
    } finally {
      clearTimeout(timer);
    }
  }
}
