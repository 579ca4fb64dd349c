import { takeUpRestoredCopy, type Db } from '../adapters/storage/index.ts';
import { restoredWords, type RestoredCopy } from '../core/settings/restored-copy.ts';
import type { Logger } from '../lib/logger.ts';

/**
 * A database that is a restored copy (decision 0137) has what may have been used after the copy was made withdrawn,
 * before any request is answered; the operator is told what, in words. Nothing happens on a database that is not a
 * copy.
 */
export async function takeUpCopy(db: Db, now: Date, log: Logger): Promise<RestoredCopy | undefined> {
  const taken = await takeUpRestoredCopy(db, now);
  if (taken !== undefined) log.warn({ restored: taken }, restoredWords(taken));
  return taken;
}
