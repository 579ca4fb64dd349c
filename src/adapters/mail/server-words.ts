/**
 * A mail server's own words, made fit to show a person: printable ASCII only, whitespace collapsed, cut at `max`;
 * undefined when nothing is left. Server text is never passed through whole — it can carry internal host names,
 * session ids or stack traces — but its short reason ("Sender address rejected: not owned by user") is often the
 * one thing that says what to fix. Each protocol drops its own framing first (an IMAP tag and `[CODE]`, an SMTP
 * reply code).
 */
export function printableReason(text: string, max = 100): string | undefined {
  const cleaned = text
    .replace(/[^\x20-\x7e]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (cleaned === '') return undefined;
  return cleaned.length > max ? `${cleaned.slice(0, max - 1).trimEnd()}…` : cleaned;
}

/** What a full mailbox means to the person, for every adapter that is told so (decision 0084). */
export const MAILBOX_FULL =
  'the mailbox is full (over its storage quota) — the person can empty the trash, delete large mail, or get more storage from the provider';
