import { describe, expect, it } from 'vitest';
import { withUtf8Header } from './eight-bit-header.ts';
import { parseMessage } from './parse-message.ts';

// Headers in raw 8-bit bytes that are not UTF-8, as old mailers, PHP scripts and spam kits write them (decision 0078).
const lines = (charset: BufferEncoding | 'windows-1251', ...text: string[]): Buffer => {
  const joined = text.join('\r\n') + '\r\n';
  if (charset !== 'windows-1251') return Buffer.from(joined, charset);
  // Node has no windows-1251 encoder: А..я are 0xC0..0xFF there, ASCII as itself.
  return Buffer.from(
    Array.from(joined, (c) => (c >= 'А' && c <= 'я' ? c.charCodeAt(0) - 0x410 + 0xc0 : c.charCodeAt(0))),
  );
};

describe('a header in raw 8-bit bytes', () => {
  it('is read as windows-1252 when the message declares no charset: subject, names, and the undeclared body', async () => {
    const m = await parseMessage(
      lines(
        'latin1',
        'From: Jos\xe9 M\xfcller <jose@example.test>',
        'To: Ren\xe9e <renee@example.test>',
        'Cc: \x80uro Team <euro@example.test>',
        'Subject: Caf\xe9 cr\xe8me',
        '',
        'Na\xefve, \x93quoted\x94.',
      ),
    );
    expect(m.subject).toBe('Café crème');
    expect(m.from).toEqual({ address: 'jose@example.test', name: 'José Müller' });
    expect(m.to).toEqual([{ address: 'renee@example.test', name: 'Renée' }]);
    expect(m.cc).toEqual([{ address: 'euro@example.test', name: '€uro Team' }]); // 0x80 is € in windows-1252
    expect(m.text.trim()).toBe('Naïve, “quoted”.');
  });

  it('is read in the charset the message declares for its text, its own or its first part’s', async () => {
    const single = await parseMessage(
      lines(
        'windows-1251',
        'From: Иван <ivan@example.test>',
        'Subject: Привет',
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=windows-1251',
        '',
        'Добрый день',
      ),
    );
    expect([single.subject, single.from.name, single.text.trim()]).toEqual(['Привет', 'Иван', 'Добрый день']);
    const multipart = await parseMessage(
      lines(
        'windows-1251',
        'From: Иван <ivan@example.test>',
        'Subject: Отчет',
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="b"',
        '',
        '--b',
        'Content-Type: text/plain; charset="windows-1251"',
        '',
        'Текст',
        '--b--',
      ),
    );
    expect([multipart.subject, multipart.from.name, multipart.text.trim()]).toEqual([
      'Отчет',
      'Иван',
      'Текст',
    ]);
  });

  it('leaves UTF-8 and 7-bit messages as they are, the same bytes', async () => {
    const utf8 = lines('utf8', 'From: Zoë <z@example.test>', 'Subject: Grüße aus Köln', '', 'Schön.');
    const ascii = lines('utf8', 'From: =?utf-8?q?Zo=C3=AB?= <z@example.test>', 'Subject: Hi', '', 'Hello');
    expect(withUtf8Header(utf8)).toBe(utf8);
    expect(withUtf8Header(ascii)).toBe(ascii);
    expect((await parseMessage(utf8)).subject).toBe('Grüße aus Köln');
  });

  it('leaves a body alone that declares its charset, is encoded, or is UTF-8 cut mid-character', async () => {
    const declared = lines(
      'latin1',
      'Subject: Caf\xe9',
      'Content-Type: text/plain; charset=iso-8859-15',
      '',
      '\xa4 is the euro sign in ISO-8859-15',
    );
    expect((await parseMessage(declared)).text.trim()).toBe('€ is the euro sign in ISO-8859-15');
    const encoded = lines(
      'latin1',
      'Subject: Caf\xe9',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('Grüße', 'utf8').toString('base64'),
    );
    expect(await parseMessage(encoded)).toMatchObject({ subject: 'Café', text: 'Grüße' });
    // A source read up to a limit ends where it was cut; a UTF-8 body stays UTF-8.
    const whole = lines('utf8', 'Subject: Hi', '', 'Schön und grün');
    const cut = whole.subarray(0, whole.indexOf('grün') + 'gr'.length + 1); // half of ü
    expect(withUtf8Header(cut)).toBe(cut);
  });

  it('is never read in a charset that does not read ASCII as ASCII, which could swallow the sender', async () => {
    for (const charset of ['iso-2022-kr', 'hz-gb-2312', 'iso-2022-jp', 'utf-16le']) {
      const m = await parseMessage(
        lines(
          'latin1',
          'Subject: Caf\xe9',
          '\x1b$B From: Mallory <mallory@example.test>',
          'From: Jos\xe9 <jose@example.test>',
          `Content-Type: text/plain; charset=${charset}`,
          '',
          'x',
        ),
      );
      expect([charset, m.subject, m.from]).toEqual([
        charset,
        'Café',
        { address: 'jose@example.test', name: 'José' },
      ]);
    }
  });
});
