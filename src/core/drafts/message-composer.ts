/** What goes into an outgoing message; every header value has already been checked (no CR, LF or NUL). */
export interface Composition {
  /** The inbox's address, with the person's name when one is known (empty: none). */
  readonly from: { readonly name: string; readonly address: string };
  /** Validated recipient list as the person wrote it (`Name <a@b>, c@d`). */
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly messageId: string;
  readonly inReplyTo: string | null;
  readonly references: readonly string[];
  readonly date: Date;
}

/** Builds RFC 5322 bytes (encoded words for non-ASCII headers, quoted-printable text). */
export interface MessageComposer {
  compose(c: Composition): Promise<Uint8Array>;
}
