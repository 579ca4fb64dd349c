import type { FlagState, RemoteSummary } from '../../../core/mail/mail-types.ts';
import type { Address } from '../../../core/messages/message.ts';
import { isOneClick, listIdOf, messageIds, threadRoot } from '../mime/header-fields.ts';
import { snippet } from '../mime/parse-message.ts';
import { positionAt } from '../provider-api.ts';

/** The fields of a Graph message resource we read. */
export interface GraphMessage {
  readonly id: string;
  readonly subject?: string | null;
  readonly from?: { emailAddress?: GraphAddress } | null;
  readonly toRecipients?: readonly { emailAddress?: GraphAddress }[];
  readonly receivedDateTime?: string;
  readonly isRead?: boolean;
  readonly isDraft?: boolean;
  readonly flag?: { flagStatus?: string };
  readonly categories?: readonly string[];
  readonly bodyPreview?: string;
  readonly hasAttachments?: boolean;
  readonly internetMessageId?: string | null;
  readonly conversationId?: string | null;
  readonly parentFolderId?: string;
  readonly internetMessageHeaders?: readonly { name: string; value: string }[];
  readonly singleValueExtendedProperties?: readonly { id: string; value: string }[];
  readonly '@removed'?: { reason?: string };
}

interface GraphAddress {
  readonly name?: string;
  readonly address?: string;
}

/** What a summary needs; `internetMessageHeaders` brings List-Id and List-Unsubscribe (Graph has no fields). */
export const SUMMARY_SELECT = [
  'id',
  'subject',
  'from',
  'toRecipients',
  'receivedDateTime',
  'isRead',
  'isDraft',
  'flag',
  'categories',
  'bodyPreview',
  'hasAttachments',
  'internetMessageId',
  'conversationId',
  'parentFolderId',
  'internetMessageHeaders',
].join(',');

/** MAPI PR_MESSAGE_SIZE: Graph has no size field, the extended property has it. */
export const SIZE_EXPAND = "singleValueExtendedProperties($filter=id eq 'Integer 0x0E08')";

export const FLAGS_SELECT = 'id,isRead,flag,categories,parentFolderId,receivedDateTime';

/** A message's place in its folder: its received time (see positionAt). */
export function positionOf(m: Pick<GraphMessage, 'id' | 'receivedDateTime'>): number {
  return positionAt(Date.parse(m.receivedDateTime ?? ''), m.id);
}

export function flagStateOf(m: GraphMessage): FlagState {
  return {
    ref: m.id,
    unread: m.isRead !== true,
    starred: m.flag?.flagStatus === 'flagged',
    labels: [...(m.categories ?? [])].sort(),
  };
}

const address = (a: GraphAddress | undefined): Address => ({
  address: a?.address ?? '',
  name: a?.name ?? '',
});

export function summaryOf(m: GraphMessage): RemoteSummary {
  const headers = new Map<string, string>();
  for (const h of m.internetMessageHeaders ?? []) {
    const key = h.name.toLowerCase();
    if (!headers.has(key)) headers.set(key, h.value);
  }
  const messageId = messageIds(m.internetMessageId)[0] ?? null;
  return {
    ...flagStateOf(m),
    position: positionOf(m),
    threadId:
      m.conversationId ??
      threadRoot(messageIds(headers.get('references')), headers.get('in-reply-to') ?? null, messageId),
    internetMessageId: messageId,
    subject: m.subject ?? '',
    from: address(m.from?.emailAddress),
    to: (m.toRecipients ?? []).map((r) => address(r.emailAddress)),
    snippet: snippet(m.bodyPreview ?? ''),
    date: new Date(Date.parse(m.receivedDateTime ?? '') || 0),
    hasAttachments: m.hasAttachments === true,
    size: Number(m.singleValueExtendedProperties?.find((p) => /0x0E08$/i.test(p.id))?.value ?? 0) || 0,
    listId: listIdOf(headers.get('list-id')),
    listUnsubscribe: headers.get('list-unsubscribe') ?? null,
    listUnsubscribePost: isOneClick(headers.get('list-unsubscribe-post')),
  };
}
