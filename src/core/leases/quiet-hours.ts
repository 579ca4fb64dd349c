/** Minutes since local midnight in a time zone. */
function localMinutes(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const h = Number(parts.find((p) => p.type === 'hour')?.value ?? 0);
  const m = Number(parts.find((p) => p.type === 'minute')?.value ?? 0);
  return h * 60 + m;
}

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * Whether `at` falls in the quiet hours (which may wrap midnight, e.g. 22:00–07:00), and when they end.
 * The end is found by stepping minute-free: the distance in local minutes, applied to `at`.
 */
export function quietUntil(at: Date, q: { start: string; end: string; timezone: string }): Date | undefined {
  const now = localMinutes(at, q.timezone);
  const start = toMinutes(q.start);
  const end = toMinutes(q.end);
  const inside = start <= end ? now >= start && now < end : now >= start || now < end;
  if (!inside || start === end) return undefined;
  const remaining = (end - now + 24 * 60) % (24 * 60);
  return new Date(at.getTime() + remaining * 60_000 - at.getSeconds() * 1000 - at.getMilliseconds());
}
