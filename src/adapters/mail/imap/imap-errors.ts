import { certificateWords } from '../../net/certificate-words.ts';
import { MailAuthError, MailProviderError } from '../../../core/mail/mail-ports.ts';
import type { LoginFailure } from '../../../core/mail/mail-ports.ts';
import type { ImapEndpoint } from '../../../core/mail/mail-types.ts';
import type { Logger } from '../../../lib/logger.ts';
import { HostNotFoundError, HostRefusedError } from '../../net/host-guard.ts';
import { MAILBOX_FULL, printableReason } from '../server-words.ts';

/**
 * Maps imapflow and socket errors to what a person may see. Server text is never passed through whole: it can
 * carry internal host names, session ids or stack traces. At most a short reason survives, reduced to plain
 * printable ASCII.
 */

interface ErrorFields {
  code?: unknown;
  authenticationFailed?: unknown;
  tlsFailed?: unknown;
  mailboxMissing?: unknown;
  response?: unknown;
  responseText?: unknown;
  serverResponseCode?: unknown;
  message?: unknown;
}

const fieldsOf = (err: unknown): ErrorFields => (typeof err === 'object' && err !== null ? err : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Drops a leading tag/status and `[CODE]`, then keeps what printableReason keeps. */
export function sanitizeReason(text: string, max = 100): string | undefined {
  return printableReason(text.replace(/^\S+\s+(NO|BAD)\s+/i, '').replace(/\[[^[\]]*\]/g, ''), max);
}

const CONNECTION_LOST = new Set([
  'NoConnection',
  'EConnectionClosed',
  'ECONNRESET',
  'EPIPE',
  'ETIMEOUT',
  'StateLogout',
]);
const TIMEOUTS = new Set(['ETIMEDOUT', 'CONNECT_TIMEOUT', 'GREETING_TIMEOUT', 'UPGRADE_TIMEOUT', 'ETIMEOUT']);
/** Why a connection or login failed, in words for the person who typed the server settings. */
export function classifyConnectError(err: unknown, endpoint: ImapEndpoint, oauth: boolean): LoginFailure {
  const where = `${endpoint.host}:${endpoint.port}`;
  if (err instanceof HostRefusedError) {
    return {
      reason: 'refused_host',
      message: `${endpoint.host} points to a private or reserved network address; the operator has to allow it explicitly.`,
    };
  }
  if (err instanceof HostNotFoundError) {
    return {
      reason: 'unreachable',
      message: `Cannot find the mail server ${endpoint.host}. Check the server name.`,
    };
  }
  const e = fieldsOf(err);
  const code = str(e.code);
  if (e.authenticationFailed === true) {
    const said = sanitizeReason(str(e.response) || str(e.responseText));
    if (refusedForNow(str(e.serverResponseCode), said ?? '')) {
      return {
        reason: 'unavailable',
        message: `The mail server could not check the login just now, a failure on its side${said === undefined ? '' : ` (server said: ${said})`}; this says nothing about the password.`,
      };
    }
    const what = oauth ? 'the sign-in token' : 'the username or password';
    return {
      reason: 'auth_failed',
      message: `The mail server did not accept ${what}${said === undefined ? '.' : ` (server said: ${said})`}`,
    };
  }
  if (e.tlsFailed === true && /STARTTLS/i.test(str(e.message))) {
    return {
      reason: 'tls_required',
      message: `${where} does not offer STARTTLS, so the password would travel unencrypted. Use port 993 (TLS), or ask the operator to allow this server.`,
    };
  }
  const certificate = certificateWords(code, endpoint.host);
  if (certificate !== undefined) return { reason: 'certificate', message: certificate };
  if (e.tlsFailed === true || /^ERR_SSL_|ClosedAfterConnectTLS/.test(code)) {
    return {
      reason: 'unreachable',
      message: `No secure connection to ${where}: check that the port expects TLS.`,
    };
  }
  if (code === 'ECONNREFUSED') return { reason: 'unreachable', message: `${where} refused the connection.` };
  if (TIMEOUTS.has(code)) return { reason: 'unreachable', message: `${where} did not answer in time.` };
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') {
    return { reason: 'unreachable', message: `${where} cannot be reached from this server.` };
  }
  return { reason: 'unreachable', message: `Could not connect to the mail server at ${where}.` };
}

/**
 * A login refused for a reason of the server's own, not the credential's: RFC 5530's UNAVAILABLE (Dovecot's
 * "Temporary authentication failure" while its password database is away, Gmail's "Temporary System Error") and
 * INUSE, and the connection limits servers word without a code (Gmail: "Too many simultaneous connections").
 * Taken for a refused password, it sent the inbox to "needs reconnecting" for good: every sync and watch stopped
 * until the person typed the same password again (decision 0085).
 */
function refusedForNow(code: string, said: string): boolean {
  return (
    code === 'UNAVAILABLE' ||
    code === 'INUSE' ||
    /too many (simultaneous |concurrent )?(connections|logins|sessions)|maximum number of connections/i.test(
      said,
    )
  );
}

/** A folder that is not (or no longer) on the server; still a MailProviderError for callers of the port. */
export class FolderMissingError extends MailProviderError {}

/**
 * A defect — ours, or the IMAP library's — rather than anything the server said or did: it is not "the mail server
 * refused", and goes on unchanged to be answered as an internal error and logged (a TypeError from decoding a NIL
 * body part did, until 2026-11-28). Node's socket and stream errors are plain Errors with a code, never these.
 */
const DEFECTS = [TypeError, RangeError, ReferenceError, SyntaxError];

/**
 * The error a session method throws: MailAuthError when the login no longer works, MailProviderError for anything
 * the server or the connection did, and a defect (DEFECTS) as it is.
 */
export function sessionError(err: unknown, action: string, log: Logger): Error {
  if (err instanceof MailAuthError || err instanceof MailProviderError) return err;
  if (DEFECTS.some((kind) => err instanceof kind)) return err as Error;
  const e = fieldsOf(err);
  log.warn({ err, action }, 'IMAP command failed');
  if (e.authenticationFailed === true)
    return new MailAuthError('The mail server no longer accepts the credential.');
  if (e.mailboxMissing === true)
    return new FolderMissingError(`Could not ${action}: the folder does not exist.`);
  if (CONNECTION_LOST.has(str(e.code))) {
    return new MailProviderError(`Could not ${action}: the connection to the mail server was lost.`);
  }
  const code = str(e.serverResponseCode);
  const words = RESPONSE_CODE_WORDS.get(code.toUpperCase());
  if (words !== undefined) return new MailProviderError(`Could not ${action}: ${words}.`);
  return new MailProviderError(
    `Could not ${action}: the mail server refused${code === '' ? '' : ` (${sanitizeReason(code, 40) ?? ''})`}.`,
  );
}

/**
 * RFC 5530's response codes that say what someone can do, in words; any other code is named as the server gave it.
 * OVERQUOTA is the common one: a free iCloud or Gmail account fills up, and from then on every draft, sent copy and
 * copy between folders is refused while moves inside the mailbox still work.
 */
const RESPONSE_CODE_WORDS: ReadonlyMap<string, string> = new Map([
  ['OVERQUOTA', MAILBOX_FULL],
  ['NOPERM', 'this login is not allowed to do that in that folder'],
  ['INUSE', 'the mailbox is busy with another session; try again in a moment'],
  ['UNAVAILABLE', 'the mail server is unavailable for now; try again later'],
  ['LIMIT', 'the mail server refused because one of its limits was reached (too large, too many)'],
]);
