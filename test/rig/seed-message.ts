/** One message to seed: raw RFC 5322 bytes plus what IMAP shows about it. */
export interface SeedMessage {
  raw: Buffer;
  flags?: readonly string[];
  /** becomes INTERNALDATE (Dovecot's maildir uses the file mtime) */
  internalDate?: Date;
}
