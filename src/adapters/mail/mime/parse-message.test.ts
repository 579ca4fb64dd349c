import { describe, expect, it } from 'vitest';
import { buildMessage } from '../../../../test/rig/message-factory.ts';
import { isOneClick, listIdOf, parseHeaderBlock, threadRoot } from './header-fields.ts';
import { parseMessage, snippet } from './parse-message.ts';
import { decodePartPreview, utf8UpToCut } from './part-preview.ts';

const base = {
  to: [{ name: 'Alice', address: 'alice@example.test' }],
  date: new Date('2025-02-01T10:00:00Z'),
  messageId: '<m1@example.test>',
};

describe('parseMessage', () => {
  it('reads a message past the parser’s limits from its header block, never throwing (decision 0097)', async () => {
    const head =
      'From: Deep <deep@example.org>\r\nTo: ann@example.test\r\nSubject: Too deep\r\nMIME-Version: 1.0\r\n';
    let deep = '';
    for (let i = 0; i < 300; i++)
      deep += `Content-Type: multipart/mixed; boundary="b${String(i)}"\r\n\r\n--b${String(i)}\r\n`;
    const tooDeep = await parseMessage(
      Buffer.from(`${head}${deep}Content-Type: text/plain\r\n\r\nAt the bottom.\r\n`),
    );
    expect(tooDeep).toMatchObject({ subject: 'Too deep', from: { address: 'deep@example.org' }, text: '' });
    expect(tooDeep.attachments).toEqual([]);
    const filler = `X-Filler: ${'x'.repeat(70)}\r\n`.repeat(15_000); // 1.2 MB a part
    const loud = await parseMessage(
      Buffer.from(
        `${head.replace('Too deep', 'Loud')}Content-Type: multipart/mixed; boundary="h"\r\n\r\n` +
          `--h\r\n${filler}\r\none\r\n--h\r\n${filler}\r\ntwo\r\n--h--\r\n`,
      ),
    );
    expect(loud).toMatchObject({ subject: 'Loud', to: [{ address: 'ann@example.test' }], text: '' });
    // A header block over the parser's limit itself: what of it fits in 1 MB.
    const huge = await parseMessage(Buffer.from(`Subject: Huge\r\n${filler}${filler}\r\nbody\r\n`));
    expect(huge.subject).toBe('Huge');
  });

  it('decodes RFC 2047 headers and legacy charsets', async () => {
    const raw = buildMessage({
      ...base,
      from: { name: '山田 太郎', address: 'taro@example.jp' },
      subject: '会議の議事録について',
      subjectCharset: 'iso-2022-jp',
      bodyCharset: 'iso-2022-jp',
      text: '来週の会議について確認します。',
    });
    const m = await parseMessage(raw);
    expect(m.subject).toBe('会議の議事録について');
    expect(m.from).toEqual({ address: 'taro@example.jp', name: '山田 太郎' });
    expect(m.text.trim()).toBe('来週の会議について確認します。');
    expect(m.date?.toISOString()).toBe('2025-02-01T10:00:00.000Z');
    expect(m.messageId).toBe('<m1@example.test>');
  });

  it('reads a body under a charset label no decoder knows as UTF-8 if its bytes are, else as windows-1252', async () => {
    const message = (parts: [type: string, charset: string, body: Buffer][]) =>
      Buffer.concat([
        Buffer.from('From: a@example.test\r\nSubject: s\r\nMIME-Version: 1.0\r\n'),
        Buffer.from('Content-Type: multipart/alternative; boundary=b\r\n\r\n'),
        ...parts.flatMap(([type, charset, body]) => [
          Buffer.from(
            `--b\r\nContent-Type: ${type}; charset=${charset}\r\nContent-Transfer-Encoding: 8bit\r\n\r\n`,
          ),
          body,
          Buffer.from('\r\n'),
        ]),
        Buffer.from('--b--\r\n'),
      ]);
    const utf8 = Buffer.from('Café – “quoted” €5 Ω', 'utf8');
    const both = await parseMessage(
      message([
        ['text/plain', 'unknown-8bit', utf8],
        ['text/html', '"x-unknown"', Buffer.from('<p>Crème</p>', 'utf8')],
      ]),
    );
    expect(both.text.trim()).toBe('Café – “quoted” €5 Ω');
    expect(both.html?.trim()).toBe('<p>Crème</p>');
    // Bytes that are not UTF-8 stay windows-1252's, as before.
    const latin = await parseMessage(
      message([['text/plain', 'ibm850', Buffer.from('Caf\xe9 \x80', 'latin1')]]),
    );
    expect(latin.text.trim()).toBe('Café €');
    // A label the decoders know is believed, even over bytes that would read as UTF-8.
    const declared = await parseMessage(message([['text/plain', 'iso-8859-1', Buffer.from('Café', 'utf8')]]));
    expect(declared.text.trim()).toBe('CafÃ©');
    // Text already in UTF-8 that only looks like windows-1252 mojibake is left alone when no label is unknown.
    const literal = await parseMessage(message([['text/plain', 'utf-8', Buffer.from('CafÃ©', 'utf8')]]));
    expect(literal.text.trim()).toBe('CafÃ©');
  });

  it('reads a single 8-bit text part that declares no charset, or US-ASCII, as its snippet does (decision 0105)', async () => {
    const message = (contentType: string | null, body: Buffer) =>
      Buffer.concat([
        Buffer.from('From: a@example.test\r\nSubject: s\r\nMIME-Version: 1.0\r\n'),
        Buffer.from(contentType === null ? '' : `Content-Type: ${contentType}\r\n`),
        Buffer.from('Content-Transfer-Encoding: 8bit\r\n\r\n'),
        body,
        Buffer.from('\r\n'),
      ]);
    for (const type of [
      null,
      'text/plain',
      'text/plain; charset="us-ascii"',
      'text/plain;\r\n charset=US-ASCII',
    ]) {
      expect((await parseMessage(message(type, Buffer.from('Grüße ✓')))).text.trim(), String(type)).toBe(
        'Grüße ✓',
      );
      expect((await parseMessage(message(type, Buffer.from('Gr\xfc\xdfe \x80', 'latin1')))).text.trim()).toBe(
        'Grüße €',
      );
    }
    const cp1251 = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]); // Привет
    const html = Buffer.concat([
      Buffer.from('<meta charset="windows-1251"><p>'),
      cp1251,
      Buffer.from('</p>'),
    ]);
    expect((await parseMessage(message('text/html', html))).html).toContain('<p>Привет</p>');
    // A charset the part declares is believed over its <meta>.
    expect((await parseMessage(message('text/html; charset=iso-8859-5', html))).html).not.toContain('Привет');
  });

  it('reads list headers, thread headers, groups and attachments', async () => {
    const raw = buildMessage({
      ...base,
      from: { address: 'news@example.com' },
      cc: [{ name: 'Smith, Carol', address: 'carol@example.org' }],
      subject: 'Caf\u00e9 news',
      subjectCharset: 'windows-1252',
      inReplyTo: '<parent@x>',
      references: ['<root@x>', '<parent@x>'],
      list: {
        id: 'news.example.com',
        name: 'News',
        unsubscribeHttps: 'https://example.com/u',
        oneClick: true,
      },
      html: '<p>Hi</p>',
      attachments: [
        { filename: 'a.bin', contentType: 'application/octet-stream', content: Buffer.from([0, 1, 2]) },
      ],
    });
    const m = await parseMessage(raw);
    expect(m).toMatchObject({
      subject: 'Café news',
      listId: 'news.example.com',
      listUnsubscribe: '<https://example.com/u>',
      listUnsubscribePost: true,
      inReplyTo: '<parent@x>',
      references: ['<root@x>', '<parent@x>'],
      text: '',
      cc: [{ address: 'carol@example.org', name: 'Smith, Carol' }],
    });
    expect(m.html).toContain('<p>Hi</p>');
    expect(m.attachments.map((a) => [a.filename, Buffer.from(a.content).toString('hex')])).toEqual([
      ['a.bin', '000102'],
    ]);
  });
});

describe('header fields', () => {
  it('unfolds a raw block and reads list and thread values', () => {
    const block = Buffer.from(
      'List-Id: "Weekly" <weekly.example.com>\r\nList-Unsubscribe: <https://x/u>,\r\n <mailto:u@x>\r\nReferences: <a@x>\r\n\t<b@x>\r\n\r\n',
    );
    const h = parseHeaderBlock(block);
    expect(h.get('list-unsubscribe')).toBe('<https://x/u>, <mailto:u@x>');
    expect(listIdOf(h.get('list-id'))).toBe('weekly.example.com');
    expect(listIdOf('bare.example.com')).toBe('bare.example.com');
    expect(isOneClick('List-Unsubscribe=One-Click')).toBe(true);
    expect(isOneClick(undefined)).toBe(false);
    expect(threadRoot(['<a@x>', '<b@x>'], '<b@x>', '<c@x>')).toBe('<a@x>');
    expect(threadRoot([], '<b@x>', '<c@x>')).toBe('<b@x>');
    expect(threadRoot([], null, '<c@x>')).toBe('<c@x>');
    expect(threadRoot([], null, null)).toBeNull();
  });
});

describe('snippet', () => {
  it('drops quoted replies, their attribution and the signature, and collapses whitespace', () => {
    const text =
      'Sounds good,\n\n  see you   then.\n\nOn Mon, 6 Jan 2025, Bob <bob@x> wrote:\n> earlier\n> text\n\n-- \nAlice\n';
    expect(snippet(text)).toBe('Sounds good, see you then.');
  });

  it('cuts long text at a word boundary with an ellipsis', () => {
    const s = snippet('word '.repeat(100), 50);
    expect(s.length).toBeLessThanOrEqual(50);
    expect(s.endsWith('word…')).toBe(true);
    expect(snippet('😀'.repeat(150), 200).length).toBeLessThanOrEqual(200);
  });

  it('falls back to the quote when nothing else is there', () => {
    expect(snippet('> only a quote')).toBe('> only a quote');
  });
});

describe('decodePartPreview', () => {
  it('tolerates a cut in base64, quoted-printable and multi-byte text', () => {
    const b64 = Buffer.from('Grüße aus Köln, bis bald!').toString('base64');
    expect(
      decodePartPreview(Buffer.from(b64.slice(0, 18)), { contentType: 'text/plain', encoding: 'base64' }),
    ).toBe('Grüße aus ');
    const qp = Buffer.from('Caf=E9 cr=E8me =\r\nbr=FBl=E');
    expect(
      decodePartPreview(qp, {
        contentType: 'text/plain',
        charset: 'iso-8859-1',
        encoding: 'quoted-printable',
      }),
    ).toBe('Café crème brûl');
    const utf8 = Buffer.from('日本語');
    expect(decodePartPreview(utf8.subarray(0, 7), { contentType: 'text/plain', charset: 'utf-8' })).toBe(
      '日本',
    );
    expect(
      decodePartPreview(Buffer.from('x'), { contentType: 'text/plain', charset: 'x-unknown-charset' }),
    ).toBe('x');
  });

  it('reads a charset no decoder knows as UTF-8 if the bytes are, else as windows-1252', () => {
    const preview = (bytes: Buffer, charset: string) =>
      decodePartPreview(bytes, { contentType: 'text/plain', charset });
    for (const charset of ['unknown-8bit', 'x-unknown', 'ibm850']) {
      expect(preview(Buffer.from('Caf\xe9 na\xefve', 'latin1'), charset)).toBe('Café naïve');
      expect(preview(Buffer.from('Café naïve', 'utf8'), charset)).toBe('Café naïve');
      expect(preview(Buffer.from('Café naïve', 'utf8').subarray(0, 9), charset)).toBe('Café na'); // cut in ï
    }
  });

  it('reads 8-bit text that declares no charset, or US-ASCII, as its bytes say (decision 0105)', () => {
    const preview = (bytes: Buffer, contentType: string, charset?: string) =>
      decodePartPreview(bytes, { contentType, charset });
    const cp1251 = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]); // Привет
    for (const charset of [undefined, 'us-ascii', '"US-ASCII"', 'ascii']) {
      expect(preview(Buffer.from('Grüße ✓\r\n'), 'text/plain', charset)).toBe('Grüße ✓\r\n');
      expect(preview(Buffer.from('Gr\xfc\xdfe \x80\r\n', 'latin1'), 'text/plain', charset)).toBe(
        'Grüße €\r\n',
      );
      expect(preview(Buffer.from('Grüße ✓').subarray(0, 9), 'text/plain', charset)).toBe('Grüße '); // cut in ✓
      // An HTML part's own <meta>, in either form, as a browser's prescan finds it.
      const html = (meta: string) =>
        Buffer.concat([Buffer.from(`<html><head>${meta}</head><body>`), cp1251, Buffer.from('</body>')]);
      expect(preview(html('<meta charset="windows-1251">'), 'text/html', charset)).toBe('Привет');
      expect(
        preview(
          html(`<META HTTP-EQUIV='Content-Type' CONTENT='text/html; charset=cp1251'>`),
          'text/html',
          charset,
        ),
      ).toBe('Привет');
      // Not in a comment, nor one no decoder knows, nor past the first 1,024 bytes; not in plain text.
      expect(preview(html('<!-- <meta charset="koi8-r"> -->'), 'text/html', charset)).toBe('Ïðèâåò');
      expect(preview(html('<meta charset="x-unknown">'), 'text/html', charset)).toBe('Ïðèâåò');
      expect(preview(html(`${' '.repeat(1024)}<meta charset="windows-1251">`), 'text/html', charset)).toBe(
        'Ïðèâåò',
      );
      expect(preview(html('<meta charset="windows-1251">'), 'text/plain', charset)).toContain('Ïðèâåò');
    }
    // UTF-8 bytes are UTF-8 whatever the <meta> says (a template's); a declared charset is believed over it.
    expect(preview(Buffer.from('<meta charset="iso-8859-1"><p>Grüße</p>'), 'text/html')).toBe('Grüße');
    expect(
      preview(
        Buffer.concat([Buffer.from('<meta charset="windows-1251">'), Buffer.from('Привет')]),
        'text/html',
        'utf-8',
      ),
    ).toBe('Привет');
  });

  it('takes for a cut only an unfinished character at the end, not any last three bytes', () => {
    // Latin-1 with its line end under a label no decoder knows was read as UTF-8: "Caf\uFFFD".
    expect(
      decodePartPreview(Buffer.from('Caf\xe9\r\n', 'latin1'), {
        contentType: 'text/plain',
        charset: 'x-unknown',
      }),
    ).toBe('Café\r\n');
    const bytes = Buffer.from('é€😀');
    for (let cut = 0; cut < 4; cut++) expect(utf8UpToCut(bytes.subarray(0, bytes.length - cut))).toBe(true);
    expect(utf8UpToCut(Buffer.from('é€'.slice(0, 2)).subarray(0, 3))).toBe(true);
    for (const bad of [
      [0x41, 0x80],
      [0x41, 0xc0],
      [0x41, 0xe2, 0x82, 0x41],
      [0xe9, 0x41],
      [0x41, 0xf5],
    ])
      expect(utf8UpToCut(Uint8Array.from(bad)), JSON.stringify(bad)).toBe(false);
  });

  it('decodes quoted-printable as RFC 2045 says, keeping malformed escapes literally', () => {
    const qp = (s: string) =>
      decodePartPreview(Buffer.from(s, 'latin1'), {
        contentType: 'text/plain',
        charset: 'utf-8',
        encoding: 'quoted-printable',
      });
    expect(qp('caf=C3=A9 d=c3=a9j=C3=A0')).toBe('café déjà'); // upper- and lower-case hex
    expect(qp('soft=\r\nbreak, bare=\nLF')).toBe('softbreak, bareLF');
    expect(qp('2+2=4, x=ZZ, y==3D')).toBe('2+2=4, x=ZZ, y==');
    expect(qp('a=\rb')).toBe('a=\rb');
    expect(qp('cut=')).toBe('cut');
    expect(qp('cut=4')).toBe('cut');
    expect(qp('=')).toBe('');
  });

  it('turns cut HTML into text without leaking CSS', () => {
    const html = Buffer.from('<html><head><style>p { color: red } .a{');
    expect(decodePartPreview(html, { contentType: 'text/html' })).toBe('');
    const body = Buffer.from('<p>Hello &amp; welcome</p><p>More <a href="https://x.test/y">here</a');
    expect(decodePartPreview(body, { contentType: 'text/html' })).toContain('Hello & welcome');
  });
});
