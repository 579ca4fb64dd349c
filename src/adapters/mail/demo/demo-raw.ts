import type MailComposer from 'nodemailer/lib/mail-composer';
import { LazyModule } from '../../lazy-module.ts';

const composerModule = new LazyModule<typeof MailComposer>('nodemailer/lib/mail-composer');
import { DEMO_DKIM_SELECTOR, demoDkimPrivateKeyPem } from '../dkim/demo-dkim-key.ts';
import type { StoredDemoMessage } from './demo-mailbox.ts';

const SIGNED_HEADERS = [
  'From',
  'To',
  'Subject',
  'Date',
  'Message-ID',
  'List-Id',
  'List-Unsubscribe',
  'List-Unsubscribe-Post',
];

const fmt = (a: { name: string; address: string }) => ({ name: a.name, address: a.address });

/**
 * A demo document as the RFC 5322 bytes a provider would hold. List mail is DKIM-signed by the sender's domain
 * with the demo key (demo-dkim-key.ts), covering the list headers as RFC 8058 §4 asks, so one-click unsubscribe
 * is checked on the demo exactly as on a real mailbox.
 */
export async function demoRaw(doc: StoredDemoMessage): Promise<Uint8Array> {
  const headers: Record<string, string> = {};
  if (doc.listId !== undefined) headers['List-Id'] = `<${doc.listId}>`;
  if (doc.listUnsubscribe !== undefined) headers['List-Unsubscribe'] = doc.listUnsubscribe;
  if (doc.listUnsubscribePost === true) headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  const built = await new (composerModule.load())({
    from: fmt(doc.from),
    to: doc.to.map(fmt),
    ...(doc.cc !== undefined && doc.cc.length > 0 && { cc: doc.cc.map(fmt) }),
    subject: doc.subject,
    text: doc.text,
    ...(doc.html !== undefined && { html: doc.html }),
    messageId: doc.messageId,
    date: new Date(doc.date),
    ...(doc.inReplyTo !== undefined && { inReplyTo: doc.inReplyTo }),
    ...(doc.references !== undefined && doc.references.length > 0 && { references: [...doc.references] }),
    attachments: (doc.attachments ?? []).map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: Buffer.from(a.base64, 'base64'),
    })),
    headers,
    disableFileAccess: true,
    disableUrlAccess: true,
  })
    .compile()
    .build();
  if (doc.listUnsubscribe === undefined) return new Uint8Array(built);
  const domain = doc.from.address.slice(doc.from.address.lastIndexOf('@') + 1).toLowerCase();
  const { dkimSign } = await import('mailauth/lib/dkim/sign.js'); // on first use, as the verifier (~190 ms)
  // Signatures go in signatureData: top-level signing options alone produce none (mailauth 7.1).
  const { signatures } = await dkimSign(built, {
    signatureData: [
      {
        signingDomain: domain,
        selector: DEMO_DKIM_SELECTOR,
        privateKey: demoDkimPrivateKeyPem(),
        canonicalization: 'relaxed/relaxed',
        headerList: SIGNED_HEADERS,
      },
    ],
  } as Parameters<typeof dkimSign>[1]);
  return new Uint8Array(Buffer.concat([Buffer.from(signatures), built]));
}
