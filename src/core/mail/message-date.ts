/** How far a Date header may run ahead of the message's arrival: clocks drift, time zones get written wrong. */
export const DATE_AHEAD_TOLERANCE_MS = 24 * 60 * 60 * 1000;

/**
 * The date a message is shown, listed and sorted by: the sender's Date header, unless there is none, it cannot be
 * read, or it is more than a day after the message arrived in the mailbox — then the arrival (decision 0062). A sender
 * could otherwise date a message years ahead and keep it first in every newest-first listing an agent reads.
 */
export function messageDate(header: Date | undefined, arrival: Date | undefined): Date {
  if (header === undefined) return arrival ?? new Date(0);
  if (arrival === undefined || header.getTime() - arrival.getTime() <= DATE_AHEAD_TOLERANCE_MS) return header;
  return arrival;
}
