/**
 * Mail that breaks the rules of its format, as spam, old mailers and hand-made messages do: a header or a part
 * missing, malformed or of a size no client expects. Written byte by byte (latin1), since most of it is what a
 * message builder refuses to write. Each has a name for failure reports.
 */

const CRLF = '\r\n';

const head = (name: string, extra: readonly string[] = []): string[] => [
  'From: Sam <sam@example.test>',
  'To: owner@example.test',
  `Subject: Broken ${name}`,
  'Date: Mon, 02 Nov 2026 10:00:00 +0000',
  `Message-ID: <broken-${name}@rig.test>`,
  ...extra,
];

const bytes = (lines: readonly string[]): Buffer => Buffer.from(lines.join(CRLF) + CRLF, 'latin1');

/** Multiparts inside multiparts, `depth` deep, a line of text at the bottom. */
export function nestedMultiparts(depth: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < depth; i++)
    out.push(`Content-Type: multipart/mixed; boundary="b${String(i)}"`, '', `--b${String(i)}`);
  out.push('Content-Type: text/plain', '', 'At the bottom.');
  for (let i = depth - 1; i >= 0; i--) out.push(`--b${String(i)}--`);
  return out;
}

function manyAttachments(count: number): string[] {
  const out = [
    'Content-Type: multipart/mixed; boundary="m"',
    '',
    '--m',
    'Content-Type: text/plain',
    '',
    'See the files.',
  ];
  for (let i = 0; i < count; i++)
    out.push(
      '--m',
      `Content-Type: application/octet-stream; name="f${String(i)}.bin"`,
      'Content-Disposition: attachment',
      'Content-Transfer-Encoding: base64',
      '',
      'AAAA',
    );
  out.push('--m--');
  return out;
}

export function brokenMail(): { name: string; raw: Buffer }[] {
  const list = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(', ');
  const mail: Record<string, string[]> = {
    'no-from-no-date-no-id': ['To: owner@example.test', 'Subject: Broken no-from', '', 'Hello.'],
    'only-a-body': ['', 'Only a body, no header at all.'],
    'group-sender': ['From: undisclosed-recipients:;', 'Subject: Broken group-sender', 'Date: soon', '', 'b'],
    'unparseable-sender': [
      'From: @@@ <<not an address>> ,,',
      'Reply-To: "',
      'Subject: Broken sender',
      '',
      'b',
    ],
    'impossible-date': [
      'From: a@example.test',
      'Date: Mon, 32 Foo 99999 99:99:99 +9999',
      'Subject: Broken date',
      '',
      'b',
    ],
    'date-in-1870': [
      'From: a@example.test',
      'Date: Thu, 01 Jan 1870 00:00:00 +0000',
      'Subject: Broken 1870',
      '',
      'b',
    ],
    'multipart-without-boundary': [
      ...head('no-boundary'),
      'Content-Type: multipart/mixed',
      '',
      'Text and no parts.',
    ],
    'multipart-never-closed': [
      ...head('never-closed'),
      'Content-Type: multipart/mixed; boundary="x"',
      '',
      '--x',
      'Content-Type: text/plain',
      '',
      'Never closed.',
    ],
    'nested-120-deep': [...head('deep'), 'MIME-Version: 1.0', ...nestedMultiparts(120)],
    '600-attachments': [...head('many-parts'), ...manyAttachments(600)],
    'unknown-charsets': [
      'From: a@example.test',
      'Subject: =?x-unknown?B?aGVsbG8=?= and =?utf-7?Q?+AGEAYgBj-?=',
      'Content-Type: text/plain; charset="x-martian"',
      '',
      'caf\xe9',
    ],
    'raw-8-bit-headers': [
      'From: Jos\xe9 <jose@example.test>',
      'Subject: Caf\xe9 cr\xe8me',
      'Date: Mon, 02 Nov 2026 10:00:00 +0000',
      '',
      'na\xefve',
    ],
    'bad-base64': [
      ...head('base64'),
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: base64',
      '',
      '!!!not base64@@@',
      '====',
      'SGVsbG8',
    ],
    'bad-quoted-printable': [
      ...head('qp'),
      'Content-Type: text/html; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      '<p>=ZZ=4=\xff</p>=',
    ],
    'unknown-transfer-encoding': [
      ...head('cte'),
      'Content-Type: text/plain',
      'Content-Transfer-Encoding: x-uuencode',
      '',
      'begin 644 a',
      '`',
      'end',
    ],
    'forwarded-message': [
      ...head('forwarded'),
      'Content-Type: multipart/mixed; boundary="o"',
      '',
      '--o',
      'Content-Type: text/plain',
      '',
      'See attached.',
      '--o',
      'Content-Type: message/rfc822',
      '',
      'From: inner@example.test',
      'Subject: inner',
      'Content-Type: multipart/mixed; boundary="i"',
      '',
      '--i',
      'Content-Type: text/plain',
      '',
      'Inner.',
      '--i',
      'Content-Type: application/pdf; name="inner.pdf"',
      'Content-Disposition: attachment; filename="inner.pdf"',
      '',
      '%PDF',
      '--i--',
      '--o--',
    ],
    'hostile-filenames': [
      ...head('filenames'),
      'Content-Type: multipart/mixed; boundary="e"',
      '',
      '--e',
      'Content-Type: text/plain',
      '',
      'Files.',
      '--e',
      'Content-Type: text/html; name="../../etc/passwd"',
      "Content-Disposition: attachment; filename*=x-bogus''%0d%0aSet-Cookie:%20a=b%22.html",
      '',
      '<script>alert(1)</script>',
      '--e',
      `Content-Type: application/octet-stream; name="${'n'.repeat(3000)}"`,
      'Content-Disposition: attachment',
      '',
      'z',
      '--e--',
    ],
    'hostile-unsubscribe': [
      ...head('list'),
      'List-Id: <broken.example.test>',
      `List-Unsubscribe: <javascript:alert(1)>, <mailto:a@example.test?subject=x%0d%0aBcc:%20evil@x.test>, <http://127.0.0.1:22/>, <https://[::1]/u>, <https://${'h'.repeat(5000)}>`,
      'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
      '',
      'b',
    ],
    'header-without-colon': [
      'From: a@example.test',
      'this line has no colon',
      'Subject: Broken colon',
      'X-Lone-CR: a\rb',
      '',
      'b',
    ],
    'html-only-with-script': [
      ...head('html'),
      'Content-Type: text/html',
      '',
      `<style>${'p{x:y}'.repeat(20000)}</style><script>evil()</script><p>Visible.</p>`,
    ],
    '100-kb-subject': ['From: a@example.test', `Subject: ${'word '.repeat(20000)}`, '', 'b'],
    '3000-recipients': [
      'From: a@example.test',
      `To: ${list(3000, (i) => `r${String(i)}@example.test`)}`,
      `Reply-To: ${list(500, (i) => `p${String(i)}@example.test`)}`,
      'Subject: Broken recipients',
      '',
      'b',
    ],
    'same-message-id-1': [...head('same-id'), '', 'One.'],
    'same-message-id-2': [...head('same-id'), '', 'Two.'],
    'empty-content-type': [...head('empty-type'), 'Content-Type: ', '', 'b'],
    'control-bytes': [
      'From: a@example.test',
      'Subject: Broken \x01\x02\x7f\x1b[31m',
      'X-Bin: \x00\x00',
      '',
      'b\x00c',
    ],
  };
  return Object.entries(mail).map(([name, lines]) => ({ name, raw: bytes(lines) }));
}
