import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboxWithMail, type InboxWithMail } from '../support/inbox-with-mail.ts';
import { PLAIN_IMAP_SERVER } from '../support/mail-backends.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// Decision 0078: headers in raw 8-bit bytes that are not UTF-8 (an old mailer's ISO-8859-1 `Subject: Café`, a PHP
// script's, a spam kit's) reached the index as U+FFFD through the server's ENVELOPE — "Caf� cr�me" from "Jos�" — where
// every mail client shows "Café crème" from "José". They are read as the clients read them, in the listing, the
// message, and search.
const USER = 'lea';
const latin1 = (...lines: string[]) => Buffer.from(lines.join('\r\n') + '\r\n', 'latin1');
const head = (id: string, subject: string) => [
  'From: Jos\xe9 M\xfcller <jose@example.test>',
  `To: L\xe9a <${USER}@example.test>`,
  'Cc: Ren\xe9e <renee@example.test>',
  `Subject: ${subject}`,
  'Date: Mon, 02 Nov 2026 10:00:00 +0000',
  `Message-ID: <${id}@rig.test>`,
];
const MAIL = [
  // No charset anywhere: windows-1252, the body too.
  latin1(...head('none', 'Caf\xe9 cr\xe8me'), '', 'Na\xefve question about cr\xe8me.'),
  // ISO-8859-1 declared by the text part of a multipart with an attachment.
  latin1(
    ...head('multi', 'R\xe9sum\xe9 attached'),
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b"',
    '',
    '--b',
    'Content-Type: text/plain; charset=iso-8859-1',
    'Content-Transfer-Encoding: 8bit',
    '',
    'Voil\xe0 mon r\xe9sum\xe9.',
    '--b',
    'Content-Type: application/pdf; name="cv.pdf"',
    'Content-Disposition: attachment; filename="cv.pdf"',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('%PDF-1.4 not really').toString('base64'),
    '--b--',
  ),
  // A header in ASCII, a body in UTF-8 under a label no decoder knows (sendmail's `unknown-8bit`).
  Buffer.concat([
    latin1(
      'From: Sendmail <relay@example.test>',
      `To: ${USER}@example.test`,
      'Subject: Relayed',
      'Date: Mon, 02 Nov 2026 11:00:00 +0000',
      'Message-ID: <unknown-8bit@rig.test>',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=unknown-8bit',
      'Content-Transfer-Encoding: 8bit',
      '',
    ),
    Buffer.from('Soufflé brûlé – “tonight”\r\n', 'utf8'),
  ]),
  // Decision 0105. A cron job's mail: no Content-Type at all, UTF-8 bytes (its snippet read them as windows-1252).
  Buffer.concat([
    latin1(
      'From: Cron Daemon <root@example.test>',
      `To: ${USER}@example.test`,
      'Subject: Cron <root@host> backup',
      'Date: Mon, 02 Nov 2026 12:00:00 +0000',
      'Message-ID: <cron@rig.test>',
      '',
    ),
    Buffer.from('Sauvegarde terminée — 3 fichiers ✓\r\n', 'utf8'),
  ]),
  // A script that labels its UTF-8 US-ASCII (read as windows-1252 in the message, and in its snippet).
  Buffer.concat([
    latin1(
      'From: Script <script@example.test>',
      `To: ${USER}@example.test`,
      'Subject: Labelled ASCII',
      'Date: Mon, 02 Nov 2026 13:00:00 +0000',
      'Message-ID: <labelled@rig.test>',
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset="us-ascii"',
      'Content-Transfer-Encoding: 8bit',
      '',
    ),
    Buffer.from('Grüße aus Köln\r\n', 'utf8'),
  ]),
  // An old newsletter whose HTML names its charset only in its own <meta> (both read it as windows-1252).
  Buffer.concat([
    latin1(
      'From: Rassylka <news@example.test>',
      `To: ${USER}@example.test`,
      'Subject: Newsletter',
      'Date: Mon, 02 Nov 2026 14:00:00 +0000',
      'Message-ID: <meta@rig.test>',
      'MIME-Version: 1.0',
      'Content-Type: text/html',
      'Content-Transfer-Encoding: 8bit',
      '',
      '<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1251"></head><body><p>',
    ),
    // "Привет, мир" in windows-1251
    Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2, 0x2c, 0x20, 0xec, 0xe8, 0xf0]),
    latin1('</p></body></html>'),
  ]),
  // An old mailer's multipart: neither part names a charset; Latin-1 bytes, raw and quoted-printable (the parser read
  // both as UTF-8: `Caf\uFFFD`, while the snippet read them as windows-1252).
  latin1(
    'From: Old Mailer <old@example.test>',
    `To: ${USER}@example.test`,
    'Subject: Old mailer',
    'Date: Mon, 02 Nov 2026 15:00:00 +0000',
    'Message-ID: <old-mailer@rig.test>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/alternative; boundary="old"',
    '',
    '--old',
    'Content-Type: text/plain',
    'Content-Transfer-Encoding: 8bit',
    '',
    'Caf\xe9 cr\xe8me, \xe0 bient\xf4t',
    '--old',
    'Content-Type: text/html',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    '<p>Caf=E9 cr=E8me, =E0 bient=F4t</p>',
    '--old--',
  ),
];

describe.each([
  ['Dovecot', {}],
  ['a plain IMAP4rev1 server', { server: PLAIN_IMAP_SERVER }],
])('headers in raw 8-bit bytes on %s', (_, opts) => {
  let inbox: InboxWithMail;
  let call: InboxWithMail['call'];
  let inboxId: string;
  interface Listed {
    messageId: string;
    subject: string;
    from: { name: string; address: string };
    snippet: string;
    hasAttachments: boolean;
  }
  const listed = async (query?: string): Promise<Listed[]> =>
    expectToolOk(await call('list_messages', { inboxId, ...(query !== undefined && { query }) }))[
      'messages'
    ] as Listed[];

  beforeAll(async () => {
    inbox = await inboxWithMail('SQLite', USER, MAIL, opts);
    ({ call, inboxId } = inbox);
  }, 60_000);
  afterAll(async () => {
    await inbox.close();
  });

  it('lists them as a mail client shows them, with what the server says of their parts', async () => {
    const all = await listed();
    expect(JSON.stringify(all)).not.toContain('\uFFFD');
    const bySubject = new Map(all.map((m) => [m.subject, m]));
    expect(bySubject.get('Café crème')).toMatchObject({
      from: { name: 'José Müller', address: 'jose@example.test' },
      snippet: 'Naïve question about crème.',
      hasAttachments: false,
    });
    expect(bySubject.get('Résumé attached')).toMatchObject({
      from: { name: 'José Müller' },
      snippet: 'Voilà mon résumé.',
      hasAttachments: true,
    });
  });

  it('reads them so: subject, every name, the text', async () => {
    const [m] = (await listed()).filter((x) => x.subject === 'Résumé attached');
    const got = expectToolOk(await call('get_message', { inboxId, messageId: m!.messageId }));
    expect(got).toMatchObject({
      subject: 'Résumé attached',
      from: { name: 'José Müller' },
      to: [{ name: 'Léa' }],
      cc: [{ name: 'Renée', address: 'renee@example.test' }],
    });
    expect(got['bodyUntrusted']).toContain('Voilà mon résumé.');
    expect(got['attachments']).toEqual([expect.objectContaining({ filename: 'cv.pdf' })]);
    const plain = (await listed()).find((x) => x.subject === 'Café crème')!;
    const text = expectToolOk(await call('get_message', { inboxId, messageId: plain.messageId }));
    expect(text['bodyUntrusted']).toContain('Naïve question about crème.');
    expect(JSON.stringify([got, text])).not.toContain('\uFFFD');
  });

  it('reads a body under a charset label no decoder knows as its snippet does: UTF-8, when its bytes are', async () => {
    const relayed = (await listed()).find((x) => x.subject === 'Relayed')!;
    expect(relayed.snippet).toBe('Soufflé brûlé – “tonight”');
    const got = expectToolOk(await call('get_message', { inboxId, messageId: relayed.messageId }));
    expect(got['bodyUntrusted']).toContain('Soufflé brûlé – “tonight”');
  });

  it('reads 8-bit text that declares no charset, or US-ASCII, as its bytes say, in its snippet and the message', async () => {
    const expected = {
      'Cron <root@host> backup': 'Sauvegarde terminée — 3 fichiers ✓',
      'Labelled ASCII': 'Grüße aus Köln',
      Newsletter: 'Привет, мир',
      'Old mailer': 'Café crème, à bientôt',
    };
    const all = await listed();
    for (const [subject, text] of Object.entries(expected)) {
      const m = all.find((x) => x.subject === subject)!;
      expect(m.snippet, subject).toBe(text);
      const got = expectToolOk(await call('get_message', { inboxId, messageId: m.messageId }));
      expect(got['bodyUntrusted'], subject).toContain(text);
    }
  });

  it('finds them by what the person reads', async () => {
    expect((await listed('crème')).map((m) => m.subject)).toEqual(['Old mailer', 'Café crème']);
    expect((await listed('Müller')).map((m) => m.subject).sort()).toEqual(['Café crème', 'Résumé attached']);
  });
});
