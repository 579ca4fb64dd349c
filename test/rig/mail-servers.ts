import { appendViaImap } from './append-via-imap.ts';
import { startDovecot, type Dovecot } from './dovecot.ts';
import { startSmtpSink, type SmtpSink } from './smtp-sink.ts';

/** Dovecot and the SMTP sink for one account (the same password for IMAP and SMTP AUTH), INBOX holding `mail`. */
export async function startMailServers(o: {
  user: string;
  password: string;
  mail: readonly Buffer[];
  /** The server's capabilities and folder roles, when not Dovecot's own (see startDovecot). */
  server?: { capabilities?: string; specialUse?: boolean; underInbox?: boolean; uidplus?: boolean };
}): Promise<{ dovecot: Dovecot; sink: SmtpSink }> {
  const [dovecot, sink] = await Promise.all([
    startDovecot({ users: { [o.user]: o.password }, ...o.server }),
    startSmtpSink({ users: { [o.user]: o.password } }),
  ]);
  await appendViaImap({
    host: '127.0.0.1',
    port: dovecot.port,
    user: o.user,
    password: o.password,
    messages: o.mail.map((raw) => ({ raw })),
  });
  return { dovecot, sink };
}
