/** The zone's wall clock at `at`, to the minute, written as if it were UTC. */
function wallClock(at: Date, timeZone: string): Date {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const n = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return new Date(Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute')));
}

/** Minutes since local midnight in a time zone. */
function localMinutes(at: Date, timeZone: string): number {
  const wall = wallClock(at, timeZone);
  return wall.getUTCHours() * 60 + wall.getUTCMinutes();
}

/** How far the zone's clock is ahead of UTC at `at`, in minutes. */
function offsetMinutes(at: Date, timeZone: string): number {
  return Math.round(
    (wallClock(at, timeZone).getTime() - Math.floor(at.getTime() / 60_000) * 60_000) / 60_000,
  );
}

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * Whether `at` falls in the quiet hours (which may wrap midnight, e.g. 22:00–07:00), and when they end: the distance
 * in local minutes applied to `at`, less the hour a change of summer time between them adds or takes away (a night
 * of 22:00–07:00 in Berlin lasts eight hours in March and ten in October).
 */
export function quietUntil(at: Date, q: { start: string; end: string; timezone: string }): Date | undefined {
  const now = localMinutes(at, q.timezone);
  const start = toMinutes(q.start);
  const end = toMinutes(q.end);
  const inside = start <= end ? now >= start && now < end : now >= start || now < end;
  if (!inside || start === end) return undefined;
  const remaining = (end - now + 24 * 60) % (24 * 60);
  const naive = at.getTime() + remaining * 60_000 - at.getSeconds() * 1000 - at.getMilliseconds();
  const shift = offsetMinutes(new Date(naive), q.timezone) - offsetMinutes(at, q.timezone);
  const until = new Date(naive - shift * 60_000);
  // An end inside the hour that spring skips does not exist that night: the first minute after it, by the naive sum.
  return localMinutes(until, q.timezone) === end ? until : new Date(naive);
}
