import { buildMessage } from '../../../test/rig/message-factory.ts';
import type { MessageSpec } from '../../../test/rig/message-factory.ts';
import type { RemoteSummary } from './mail-types.ts';

/** Message fixtures shared by the MailSession contract files. */

/** The part of a harness that delivers mail (MailHarness has it). */
export interface Deliverer {
  readonly inboxPath: string;
  append(folderPath: string, raw: Buffer, opts?: { flags?: string[]; date?: Date }): Promise<void>;
}

export const BASE = Date.parse('2025-03-03T09:00:00Z');
export const ALICE = { name: 'Alice Example', address: 'alice@example.test' };
let counter = 0;

/** A message spec with a unique Message-ID; `n` orders dates (one hour apart). */
export function spec(n: number, overrides: Partial<MessageSpec> = {}): MessageSpec {
  counter++;
  return {
    from: { name: 'Bob Smith', address: 'bob@example.com' },
    to: [ALICE],
    subject: `Message ${n}`,
    date: new Date(BASE + n * 3_600_000),
    messageId: `<contract-${counter}-${Date.now().toString(36)}@example.test>`,
    text: `Hello, this is message ${n}.\n`,
    ...overrides,
  };
}

export async function deliver(
  h: Deliverer,
  specs: readonly MessageSpec[],
  opts: { folder?: string; flags?: (i: number) => string[] } = {},
): Promise<MessageSpec[]> {
  for (const [i, s] of specs.entries()) {
    await h.append(opts.folder ?? h.inboxPath, buildMessage(s), {
      flags: opts.flags?.(i) ?? [],
      date: s.date,
    });
  }
  return [...specs];
}

export const byId = (list: readonly RemoteSummary[], s: MessageSpec): RemoteSummary => {
  const found = list.find((m) => m.internetMessageId === s.messageId);
  if (found === undefined) throw new Error(`${s.messageId} is missing`);
  return found;
};

export async function bytesOf(content: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of content) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}
