/**
 * Which node watches which inbox (decision 0024): each connected inbox has one watcher in the whole cluster, held
 * by the node that claimed it. A claim lasts while the node lives; when it dies, its claims lapse and other nodes
 * take its inboxes over.
 */
export interface InboxClaims {
  /** How many nodes share the inboxes now, this one included (at least 1). */
  nodes(): Promise<number>;
  /** Claims the inbox for this node: false when another node holds it. */
  claim(inboxId: string): Promise<boolean>;
  release(inboxId: string): Promise<void>;
  /**
   * Called at the moment this node loses all its claims at once (its session ended), so its watchers stop before
   * another node can claim their inboxes.
   */
  onLost(listener: () => void): void;
  close(): Promise<void>;
}

/** One process, one node: it holds every inbox. */
export const soleNode: InboxClaims = {
  nodes: () => Promise.resolve(1),
  claim: () => Promise.resolve(true),
  release: () => Promise.resolve(),
  onLost: () => undefined,
  close: () => Promise.resolve(),
};
