import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { oneClickVerdict } from '../../../core/unsubscribe/one-click-policy.ts';
import { buildMessage, type ListSpec } from '../../../../test/rig/message-builder.ts';
import { asExchangeStoresIt, dkimSigner, ONE_CLICK_HEADERS } from '../../../../test/rig/dkim-fixtures.ts';
import { demoRaw } from '../demo/demo-raw.ts';
import { MAX_SIGNATURES_CHECKED, mailauthDkimVerifier } from './mailauth-dkim-verifier.ts';

// RFC 8058 one-click decided on real DKIM signatures (mailauth), with a key the test publishes itself.
const signer = dkimSigner('news.example.test');
const verifier = mailauthDkimVerifier({ resolver: signer.resolver });

const ONE_CLICK: ListSpec = {
  id: 'weekly.news.example.test',
  unsubscribeHttps: 'https://news.example.test/u/abc',
  unsubscribeMailto: 'mailto:leave@news.example.test?subject=unsubscribe',
  oneClick: true,
};

const message = (
  list: ListSpec | undefined,
  headers: Record<string, string> = {},
  body: { text: string } | { html: string } = { text: 'Hello' },
) =>
  buildMessage({
    from: { name: 'Weekly News', address: 'weekly@news.example.test' },
    to: [{ address: 'me@example.test' }],
    subject: 'This week',
    date: new Date(Date.UTC(2030, 0, 1)),
    messageId: '<n1@news.example.test>',
    ...(list !== undefined && { list }),
    headers,
    ...body,
  });

async function verdict(raw: Buffer, demo = false) {
  return oneClickVerdict(raw, () => verifier.verify(raw, { demo }));
}

describe('one-click unsubscribe on DKIM-verified headers', () => {
  it('a signature covering both headers allows one-click to the https link', async () => {
    const v = await verdict(await signer.sign(message(ONE_CLICK), ONE_CLICK_HEADERS));
    expect(v).toEqual({
      oneClick: true,
      url: 'https://news.example.test/u/abc',
      signedBy: 'news.example.test',
    });
  });

  it('the person’s provider found the From forged (topmost Authentication-Results): nothing, not even the fallbacks', async () => {
    const signed = await signer.sign(message(ONE_CLICK), ONE_CLICK_HEADERS);
    const verdictOf = (...results: string[]) =>
      verdict(
        Buffer.concat([
          ...results.map((r) => Buffer.from(`Authentication-Results: mx.provider.test; ${r}\r\n`)),
          signed,
        ]),
      );
    expect(await verdictOf('dmarc=fail header.from=news.example.test')).toEqual({
      oneClick: false,
      reason: 'sender_failed_dmarc',
      fallback: { mailto: null, link: null },
    });
    // Only the topmost field is the provider's; one below it may be the sender's own words.
    expect(await verdictOf('dmarc=pass header.from=news.example.test', 'dmarc=fail')).toMatchObject({
      oneClick: true,
    });
    expect(await verdictOf('dmarc=none')).toMatchObject({ oneClick: true });
  });

  it('refuses an unsigned message, naming the fallbacks', async () => {
    const v = await verdict(message(ONE_CLICK));
    expect(v).toEqual({
      oneClick: false,
      reason: 'unsigned',
      fallback: {
        mailto: { to: 'leave@news.example.test', subject: 'unsubscribe', body: null },
        link: 'https://news.example.test/u/abc',
      },
    });
  });

  it('checks at most five signatures, those covering both list headers first: 400 made 400 DNS lookups', async () => {
    // A sender's own signatures, each over a correct body hash and naming a key on a domain of its choice: mailauth
    // looks each key up, one after another (decision 0099).
    const signed = await signer.sign(message(ONE_CLICK), ONE_CLICK_HEADERS);
    const body = signed.subarray(signed.indexOf('\r\n\r\n') + 4);
    const bh = createHash('sha256').update(body).digest('base64');
    const junk = Array.from(
      { length: 400 },
      (_, i) =>
        `DKIM-Signature: v=1; a=rsa-sha256; c=simple/simple; d=d${String(i)}.example;\r\n s=s${String(i)}; h=from; bh=${bh}; b=AAAA\r\n`,
    ).join('');
    const lookups: string[] = [];
    const counting = mailauthDkimVerifier({
      resolver: (name, rrtype) => {
        lookups.push(name);
        return signer.resolver(name, rrtype);
      },
    });
    // The real signature below the junk, and above it.
    for (const raw of [
      Buffer.concat([Buffer.from(junk), signed]),
      Buffer.concat([
        signed.subarray(0, signed.indexOf('From:')),
        Buffer.from(junk),
        signed.subarray(signed.indexOf('From:')),
      ]),
    ]) {
      lookups.length = 0;
      const signatures = await counting.verify(raw, { demo: false });
      expect(lookups.length).toBeLessThanOrEqual(MAX_SIGNATURES_CHECKED);
      expect(signatures.filter((x) => x.result === 'pass').map((x) => x.domain)).toEqual([
        'news.example.test',
      ]);
      expect(await oneClickVerdict(raw, () => Promise.resolve(signatures))).toMatchObject({
        oneClick: true,
        signedBy: 'news.example.test',
      });
    }
  });

  it('keeps a header’s raw 8-bit bytes as they are when it takes signatures out', async () => {
    // Bytes 0x80–0x9F (windows-1252 quotes, written raw by some mailers) survive the rebuild of the header block.
    const raw = Buffer.concat([Buffer.from('X-Quote: \x93quoted\x94\r\n', 'latin1'), message(ONE_CLICK)]);
    const signed = await signer.sign(raw, [...ONE_CLICK_HEADERS, 'X-Quote']);
    const junk = Array.from(
      { length: 6 },
      (_, i) => `DKIM-Signature: v=1; d=d${String(i)}.example; s=s; h=from; bh=A; b=A\r\n`,
    );
    expect(await verdict(Buffer.concat([Buffer.from(junk.join('')), signed]))).toMatchObject({
      oneClick: true,
    });
  });

  it('does not check a header block of more than 2,000 lines: mailauth joins folded lines in quadratic time', async () => {
    const signed = await signer.sign(message(ONE_CLICK), ONE_CLICK_HEADERS);
    const folded = (lines: number) => Buffer.from(`X-Long: a${'\r\n b'.repeat(lines)}\r\n`);
    // 1,500 lines: checked, and the signature found.
    const long = Buffer.concat([folded(1500), signed]);
    expect(await verdict(long)).toMatchObject({ oneClick: true, signedBy: 'news.example.test' });
    // 100,000 lines took mailauth 40 s; the message now counts as unsigned at once, its fallback offered.
    const tooLong = Buffer.concat([folded(100_000), signed]);
    expect(await verifier.verify(tooLong, { demo: false })).toEqual([]);
    expect(await verdict(tooLong)).toMatchObject({ oneClick: false, reason: 'unsigned' });
  });

  it('reads a header of 640,000 folded lines in one pass', async () => {
    // Unfolded a line at a time, copying the value so far each time: 1.3 MB of it held the thread for 107 s.
    const raw = Buffer.concat([Buffer.from(`X-Long: a${'\r\n b'.repeat(640_000)}\r\n`), message(ONE_CLICK)]);
    expect(await oneClickVerdict(raw, () => Promise.resolve([]))).toMatchObject({
      oneClick: false,
      reason: 'unsigned',
    });
  });

  it('refuses a signature that does not cover List-Unsubscribe-Post', async () => {
    const raw = await signer.sign(
      message(ONE_CLICK),
      ONE_CLICK_HEADERS.filter((h) => h !== 'List-Unsubscribe-Post'),
    );
    expect(await verdict(raw)).toMatchObject({ oneClick: false, reason: 'signature_not_covering' });
  });

  it('refuses when the link was changed after signing (the signature fails)', async () => {
    const signed = await signer.sign(message(ONE_CLICK), ONE_CLICK_HEADERS);
    const tampered = Buffer.from(signed.toString('latin1').replace('/u/abc', '/u/xyz'), 'latin1');
    expect(await verdict(tampered)).toMatchObject({ oneClick: false, reason: 'unsigned' });
  });

  it('refuses a second List-Unsubscribe added above the signed one (the signature still passes)', async () => {
    const signed = await signer.sign(message(ONE_CLICK), ONE_CLICK_HEADERS);
    const forged = Buffer.concat([Buffer.from('List-Unsubscribe: <https://evil.example/u>\r\n'), signed]);
    expect((await verifier.verify(forged, { demo: false })).map((s) => s.result)).toEqual(['pass']);
    expect(await oneClickVerdict(forged, () => verifier.verify(forged, { demo: false }))).toMatchObject({
      oneClick: false,
      reason: 'duplicated_header',
    });
  });

  it('refuses http: links, mailto-only lists and lists without the POST header', async () => {
    const http = { ...ONE_CLICK, unsubscribeHttps: 'http://news.example.test/u/abc' };
    expect(await verdict(await signer.sign(message(http), ONE_CLICK_HEADERS))).toMatchObject({
      reason: 'not_https',
      fallback: { link: 'http://news.example.test/u/abc' },
    });
    const { unsubscribeHttps: _drop, ...mailtoOnly } = ONE_CLICK;
    expect(await verdict(await signer.sign(message(mailtoOnly), ONE_CLICK_HEADERS))).toMatchObject({
      reason: 'mailto_only',
      fallback: { link: null, mailto: { to: 'leave@news.example.test' } },
    });
    const noPost = { ...ONE_CLICK, oneClick: false };
    expect(await verdict(await signer.sign(message(noPost), ONE_CLICK_HEADERS))).toMatchObject({
      reason: 'no_one_click_post',
    });
    expect(await verdict(await signer.sign(message(undefined), ONE_CLICK_HEADERS))).toMatchObject({
      reason: 'no_list_unsubscribe',
    });
  });

  it('trusts the demo key only for demo mail', async () => {
    const raw = await demoRaw({
      messageId: '<d1@demo.test>',
      from: { name: 'Demo News', address: 'news@lists.demo.test' },
      to: [{ name: '', address: 'me@demo.test' }],
      subject: 'Demo',
      text: 'Hi',
      listId: 'demo.lists.demo.test',
      listUnsubscribe: '<https://lists.demo.test/u/1>',
      listUnsubscribePost: true,
      unread: true,
      date: new Date(Date.UTC(2030, 0, 1)).toISOString(),
    });
    expect(await verdict(Buffer.from(raw), true)).toMatchObject({
      oneClick: true,
      url: 'https://lists.demo.test/u/1',
    });
    expect(await verdict(Buffer.from(raw), false)).toMatchObject({ oneClick: false, reason: 'unsigned' });
  });
});

// Exchange Online verifies DKIM on arrival, then rewrites stored HTML: the MIME read back fails the body hash of nearly
// every HTML newsletter. The header signature still verifies here, and Exchange's verdict vouches for the body
// (decision 0157).
describe('one-click on a body the person’s provider changed after verifying it', () => {
  const html = () =>
    message(
      ONE_CLICK,
      {},
      { html: '<html><head><title>This week</title></head><body><p>Hello</p></body></html>' },
    );
  const PASS = 'dkim=pass (signature was verified) header.d=news.example.test';
  const signedHtml = async () => signer.sign(html(), ONE_CLICK_HEADERS);

  it('the header signature verifies and the provider verified the domain: one-click', async () => {
    const stored = asExchangeStoresIt(await signedHtml(), PASS);
    const signatures = await verifier.verify(stored, { demo: false });
    expect(signatures).toMatchObject([{ result: 'neutral', domain: 'news.example.test', bodyChanged: true }]);
    expect(await verdict(stored)).toEqual({
      oneClick: true,
      url: 'https://news.example.test/u/abc',
      signedBy: 'news.example.test',
    });
  });

  it('without the provider’s pass for that domain, as its topmost verdict: unsigned, as before', async () => {
    const signed = await signedHtml();
    const stored = asExchangeStoresIt(signed, PASS);
    const withoutVerdict = stored.subarray(stored.indexOf('DKIM-Signature:'));
    for (const raw of [
      withoutVerdict,
      asExchangeStoresIt(signed, 'dkim=fail (body hash did not verify) header.d=news.example.test'),
      asExchangeStoresIt(signed, 'dkim=pass (signature was verified) header.d=other.example.test'),
      asExchangeStoresIt(signed, 'dkim=none (message not signed)'),
      // The pass below the topmost verdict is not the provider's.
      Buffer.concat([Buffer.from('Authentication-Results: mx.provider.test; dkim=none\r\n'), stored]),
    ])
      expect(await verdict(raw)).toMatchObject({ oneClick: false, reason: 'unsigned' });
  });

  it('a verdict naming the signature by header.b must name this one', async () => {
    const signed = await signedHtml();
    const b = /\bb=([A-Za-z0-9+/=\s]+)/.exec(signed.toString('latin1'))![1]!.replace(/\s+/g, '');
    const pass = (prefix: string) =>
      asExchangeStoresIt(signed, `dkim=pass header.i=@news.example.test header.s=s1 header.b=${prefix}`);
    expect(await verdict(pass(b.slice(0, 8)))).toMatchObject({ oneClick: true });
    const other = `${b[0] === 'A' ? 'B' : 'A'}${b.slice(1, 8)}`;
    expect(await verdict(pass(other))).toMatchObject({ oneClick: false, reason: 'unsigned' });
  });

  it('a header changed after signing fails the header signature, whatever the provider said', async () => {
    const stored = asExchangeStoresIt(await signedHtml(), PASS);
    const tampered = Buffer.from(stored.toString('latin1').replace('/u/abc', '/u/xyz'), 'latin1');
    expect(await verifier.verify(tampered, { demo: false })).toMatchObject([{ bodyChanged: false }]);
    expect(await verdict(tampered)).toMatchObject({ oneClick: false, reason: 'unsigned' });
  });

  it('a signature that does not cover both list headers is not looked at again: no key lookup', async () => {
    const lookups: string[] = [];
    const counting = mailauthDkimVerifier({
      resolver: (name, rrtype) => {
        lookups.push(name);
        return signer.resolver(name, rrtype);
      },
    });
    const partial = asExchangeStoresIt(
      await signer.sign(
        html(),
        ONE_CLICK_HEADERS.filter((h) => h !== 'List-Unsubscribe-Post'),
      ),
      PASS,
    );
    expect(await counting.verify(partial, { demo: false })).toMatchObject([{ bodyChanged: false }]);
    expect(lookups).toEqual([]);
    expect(await oneClickVerdict(partial, () => counting.verify(partial, { demo: false }))).toMatchObject({
      oneClick: false,
      reason: 'unsigned',
    });
  });

  it('no key published, or another key under its name: not verified', async () => {
    const stored = asExchangeStoresIt(await signedHtml(), PASS);
    const none = mailauthDkimVerifier({
      resolver: (n) => Promise.reject(Object.assign(new Error(`ENOTFOUND ${n}`), { code: 'ENOTFOUND' })),
    });
    expect(await none.verify(stored, { demo: false })).toMatchObject([{ bodyChanged: false }]);
    const another = mailauthDkimVerifier({ resolver: dkimSigner('news.example.test').resolver });
    expect(await another.verify(stored, { demo: false })).toMatchObject([{ bodyChanged: false }]);
  });

  it('an Ed25519 signature (RFC 8463) verifies over its header fields too; rsa-sha1 (RFC 8301) is not taken', async () => {
    for (const [algorithm, verified] of [
      ['ed25519-sha256', true],
      ['rsa-sha1', false],
    ] as const) {
      const s = dkimSigner('news.example.test', 's2', algorithm);
      const stored = asExchangeStoresIt(await s.sign(html(), ONE_CLICK_HEADERS), PASS);
      const v = mailauthDkimVerifier({ resolver: s.resolver });
      expect(await v.verify(stored, { demo: false }), algorithm).toMatchObject([{ bodyChanged: verified }]);
      expect(await oneClickVerdict(stored, () => v.verify(stored, { demo: false }))).toMatchObject({
        oneClick: verified,
      });
    }
  });

  it('a signature past its x= expiry is not taken', async () => {
    const day = 86_400_000;
    for (const [expires, verified] of [
      [new Date(Date.now() - day), false],
      [new Date(Date.now() + day), true],
    ] as const) {
      const stored = asExchangeStoresIt(await signer.sign(html(), ONE_CLICK_HEADERS, { expires }), PASS);
      expect(stored.toString('latin1')).toMatch(/\bx=\d+/);
      expect(await verifier.verify(stored, { demo: false })).toMatchObject([{ bodyChanged: verified }]);
    }
  });
});
