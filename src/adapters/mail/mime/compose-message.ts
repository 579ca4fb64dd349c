import type MailComposer from 'nodemailer/lib/mail-composer';
import { LazyModule } from '../../lazy-module.ts';

const composerModule = new LazyModule<typeof MailComposer>('nodemailer/lib/mail-composer');
import type { Composition, MessageComposer } from '../../../core/drafts/message-composer.ts';

/**
 * RFC 5322 bytes via nodemailer's MailComposer: RFC 2047 encoded words for non-ASCII names and subjects, folded
 * headers, quoted-printable text. File and URL access are off: nothing in a draft can make it read a file or fetch.
 * Values arrive validated (no CR, LF or NUL), so no header can be smuggled in.
 */
export const mailComposer: MessageComposer = {
  async compose(c: Composition): Promise<Uint8Array> {
    const node = new (composerModule.load())({
      from: c.from.name === '' ? c.from.address : { name: c.from.name, address: c.from.address },
      to: c.to,
      subject: c.subject,
      text: c.text,
      messageId: c.messageId,
      date: c.date,
      ...(c.inReplyTo !== null && { inReplyTo: c.inReplyTo }),
      ...(c.references.length > 0 && { references: [...c.references] }),
      textEncoding: 'quoted-printable',
      disableFileAccess: true,
      disableUrlAccess: true,
    }).compile();
    const raw = await node.build();
    return new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  },
};
