import type { gmail_v1 } from '@googleapis/gmail';
import { describe, expect, it } from 'vitest';
import { contentOf } from './gmail-message.ts';

// Gmail's `format=full` gives each part's bytes as the sender wrote them (base64url), with the part's own headers;
// the parts are decoded here, not by the MIME parser, by the same rule as an IMAP snippet (decision 0105).
const part = (mimeType: string, contentType: string, bytes: Buffer): gmail_v1.Schema$MessagePart => ({
  mimeType,
  headers: [{ name: 'Content-Type', value: contentType }],
  body: { data: bytes.toString('base64url'), size: bytes.length },
});
const message = (...parts: gmail_v1.Schema$MessagePart[]): gmail_v1.Schema$Message => ({
  id: 'm1',
  payload: {
    mimeType: 'multipart/alternative',
    headers: [{ name: 'Subject', value: 's' }],
    parts,
  },
});
const cp1251 = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]); // Привет

describe('a Gmail message’s text parts', () => {
  it('read 8-bit text that declares no charset as its bytes say: UTF-8, the HTML’s <meta>, else windows-1252', async () => {
    const html = Buffer.concat([
      Buffer.from('<meta charset="windows-1251"><p>'),
      cp1251,
      Buffer.from('</p>'),
    ]);
    const got = await contentOf(
      message(
        part('text/plain', 'text/plain', Buffer.from('Gr\xfc\xdfe \x80', 'latin1')),
        part('text/html', 'text/html', html),
      ),
    );
    expect(got.text).toBe('Grüße €');
    expect(got.html).toBe('<meta charset="windows-1251"><p>Привет</p>');
    const utf8 = await contentOf(
      message(part('text/plain', 'text/plain; charset=us-ascii', Buffer.from('Grüße ✓'))),
    );
    expect(utf8.text).toBe('Grüße ✓');
    // A charset the part declares is believed.
    const declared = await contentOf(
      message(part('text/plain', 'text/plain; charset=iso-8859-1', Buffer.from('Café'))),
    );
    expect(declared.text).toBe('CafÃ©');
  });
});
