import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboxWithMail, type InboxWithMail } from '../support/inbox-with-mail.ts';
import { expectToolOk } from '../support/tool-caller.ts';

// Mail that has only an HTML body, as senders write it, through Dovecot, the sync and the tools: what the agent is
// given to read is what the person would read.
function htmlMail(subject: string, html: string): Buffer {
  return Buffer.from(
    [
      'From: Shop <orders@shop.example>',
      'To: owner@example.test',
      `Subject: ${subject}`,
      `Message-ID: <${subject.replace(/\W/g, '')}@shop.example>`,
      'Date: Mon, 30 Nov 2026 09:00:00 +0000',
      'MIME-Version: 1.0',
      'Content-Type: text/html; charset=utf-8',
      '',
      html,
      '',
    ].join('\r\n'),
  );
}

// A receipt in a card layout: the whole message in a table whose corners are clipped with overflow:hidden, the
// commonest wrapper in mail templates. Before, any "hidden" in an element's attributes dropped the element: the
// preview and the body came out empty.
const RECEIPT = htmlMail(
  'Your receipt',
  `<!doctype html><html><head><style>td{font-family:sans-serif}</style></head><body>
<div style="display:none;max-height:0;overflow:hidden">Preheader the person never sees</div>
<table role="presentation" style="border-radius:8px;overflow:hidden" width="600"><tr><td>
<h1>Thanks for your order</h1><p>Order 4471 &middot; Total &euro;42.00</p>
<p><a href="https://shop.example/orders/4471">View your order</a></p></td></tr></table></body></html>`,
);

// A mail of 1.5 MB of links never closed. The converter this replaced scanned to the end of the document from every
// one of them: reading it held the service's only thread — every agent's and person's requests — for minutes.
const UNCLOSED = htmlMail(
  'Unclosed links',
  `<p>First words.</p>${'<a href="https://x.example/">y '.repeat(50_000)}`,
);

// A template whose <head> holds 22 KB of CSS before the first word: the preview read 8 KB of the part, found only
// markup, and the message was listed with no preview at all (decision 0096).
const STYLED = htmlMail(
  'Styled newsletter',
  `<html><head><style>${Array.from({ length: 300 }, (_, i) => `.c${String(i)} { color: #333; font-family: Helvetica, Arial, sans-serif; margin: 0 }`).join('\n')}</style></head>` +
    '<body><p>Your order has shipped.</p></body></html>',
);

describe('HTML-only mail as senders write it, read at Dovecot', () => {
  let inbox: InboxWithMail;
  beforeAll(async () => {
    inbox = await inboxWithMail('SQLite', 'htmlmail', [RECEIPT, UNCLOSED, STYLED]);
  }, 60_000);
  afterAll(() => inbox.close());

  const messageWith = async (subject: string) => {
    const listed = expectToolOk(await inbox.call('list_messages', { inboxId: inbox.inboxId, limit: 10 }));
    const found = (listed['messages'] as { messageId: string; subject: string; snippet: string }[]).find(
      (m) => m.subject.includes(subject),
    );
    expect(found, subject).toBeDefined();
    return found as NonNullable<typeof found>;
  };

  it('previews and reads a receipt wrapped in overflow:hidden, without the preheader it hides', async () => {
    const receipt = await messageWith('Your receipt');
    expect(receipt.snippet).toContain('Order 4471 · Total €42.00');
    expect(receipt.snippet).not.toContain('Preheader');
    const read = expectToolOk(
      await inbox.call('get_message', { inboxId: inbox.inboxId, messageId: receipt.messageId }),
    );
    const body = read['bodyUntrusted'] as string;
    expect(body).toContain('Thanks for your order');
    expect(body).toContain('View your order (https://shop.example/orders/4471)');
    expect(body).not.toContain('Preheader');
  });

  it('previews a message whose first 8 KB are all style', async () => {
    expect((await messageWith('Styled newsletter')).snippet).toBe('Your order has shipped.');
  });

  it('reads 1.5 MB of unclosed links in one pass, and the next call is answered', async () => {
    const unclosed = await messageWith('Unclosed links');
    expect(unclosed.snippet).toMatch(/^First words\. y \(https:\/\/x\.example\/\) y/);
    const read = expectToolOk(
      await inbox.call('get_message', { inboxId: inbox.inboxId, messageId: unclosed.messageId }),
    );
    expect(read['bodyUntrusted'] as string).toContain('First words.');
    expectToolOk(await inbox.call('list_inboxes', {}));
  });
});
