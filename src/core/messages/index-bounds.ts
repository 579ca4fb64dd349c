import { sha256Hex } from '../../lib/secret-token.ts';

/**
 * The longest value a sender can make the index keep in a field it looks rows up by (decision 0061). PostgreSQL
 * refuses an index entry over ~2,700 bytes, so one message whose From address or thread id is several kilobytes of
 * random text failed the whole folder's sync there — any sender could stop an inbox's mail. SQLite took it.
 *
 * - An address is at most 320 characters (RFC 5321: 64 for the local part, 255 for the domain): one longer is no
 *   address anyone sends from, and kept to its first 320 it still matches itself and cannot equal a real one.
 * - A thread id longer than 200 characters (the longest a draft takes as the thread to reply in) becomes a digest of
 *   itself, the same for every message that names the same thread, and short enough to hand back.
 * - A List-Id is at most 255 characters (RFC 2919).
 */
export const INDEX_BOUNDS = { addressChars: 320, threadIdChars: 200, listIdChars: 255 } as const;

export function boundedAddress(address: string): string {
  return address.length <= INDEX_BOUNDS.addressChars ? address : address.slice(0, INDEX_BOUNDS.addressChars);
}

export function boundedThreadId(threadId: string | null): string | null {
  if (threadId === null || threadId.length <= INDEX_BOUNDS.threadIdChars) return threadId;
  return `<${sha256Hex(threadId).slice(0, 40)}@long-thread-id.invalid>`;
}

export function boundedListId(listId: string | null): string | null {
  return listId === null || listId.length <= INDEX_BOUNDS.listIdChars
    ? listId
    : listId.slice(0, INDEX_BOUNDS.listIdChars);
}
