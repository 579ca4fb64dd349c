import type { DnsResolver } from '../adapters/mail/dkim/mailauth-dkim-verifier.ts';
import type { AddressPolicy, HostLookup } from '../adapters/net/host-guard.ts';
import type { Db } from '../adapters/storage/index.ts';
import type { PasswordHasher } from '../core/accounts/password-hasher.ts';
import type { Principal } from '../core/auth/principal.ts';
import type { MailExchangeLookup } from '../core/inboxes/provider-detection.ts';
import type { MailConnector } from '../core/mail/mail-ports.ts';
import type { RateLimiter } from '../core/rate-limits/rate-limiter.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { ClientMetadataFetcher } from '../oauth/client/client.ts';

/** What tests (and the CLI's one-shot commands) may swap when they build the app. */
export interface AppOverrides {
  /** The services' clock, used as it is (a test that sets the time). Default: the cluster's (cluster-clock.ts). */
  readonly clock?: Clock;
  /** Tests: what this machine's clock says, which the cluster's clock corrects on PostgreSQL. Default: the system's. */
  readonly machineClock?: Clock;
  readonly log?: Logger;
  /** An already-open database (tests share one per file). The app then does not close it. */
  readonly db?: Db;
  /** The `serve` command: aborted when the process is asked to stop, which ends a wait for the database. */
  readonly stopping?: AbortSignal;
  /** Skip running migrations on start (the `migrate` command and readiness tests). Default: migrate. */
  readonly migrate?: boolean;
  /** False: this process takes no background jobs (the `account` command must not pick up a cluster's syncs). */
  readonly workJobs?: boolean;
  readonly hasher?: PasswordHasher;
  readonly limiter?: RateLimiter;
  /** Tests only: /mcp requests without credentials act as this principal (for the conformance suite). */
  readonly mcpUnauthenticatedAs?: { principal: Principal };
  /** Tests: serve Client ID Metadata Documents from a local server instead of the SSRF-guarded fetcher. */
  readonly clientMetadataFetcher?: ClientMetadataFetcher;
  readonly imapConnector?: MailConnector;
  /** Tests: DNS for DKIM key lookups (mailauth's resolver shape). */
  readonly dkimResolver?: DnsResolver;
  /** Tests: DNS answers and a CA for the one-click unsubscribe request (a local https sink). */
  readonly unsubscribeLookup?: HostLookup;
  readonly unsubscribeCa?: string;
  /** Tests: DNS answers, the addresses allowed and a CA for SMTP submission (a local sink under a provider's name). */
  readonly smtp?: { readonly lookup: HostLookup; readonly addressPolicy: AddressPolicy; readonly ca: string };
  /** Tests: where a custom domain's mail goes (the MX records), instead of the system's DNS. */
  readonly mailExchanges?: MailExchangeLookup;
  /** Result size cap for tools (characters of JSON). */
  readonly maxToolResultChars?: number;
}
