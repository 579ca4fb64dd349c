/**
 * imapflow types a fetched section (`source`, `headers`, a body part) as a Buffer, but a server may answer NIL for
 * it, and imapflow then gives `false`. Dovecot does so for a message another session expunged a moment ago, until
 * this session hears of the expunge: the person's phone deleting or moving mail while a sync fetches it. Every read of
 * fetched bytes goes through here, so such a section counts as absent — never as bytes to decode.
 */
export function bytesOf(value: unknown): Buffer | undefined {
  return Buffer.isBuffer(value) ? value : undefined;
}
