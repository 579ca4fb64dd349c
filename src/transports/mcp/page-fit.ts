/**
 * Long lists are shortened by the tool that knows how to continue them, not cut by the result-size safety net
 * (tool-result.ts `fitToLimit`), which would lose items silently between pages. A page of previews is kept within
 * this many characters of JSON, counting what the marks on sender-written text add (decision 0017).
 */
export const PAGE_BUDGET_CHARS = 80_000;
/** ⟦n⟧ and ⟦/n⟧ on a preview's five sender-written fields. */
const MARKS_PER_ITEM = 5 * 17;

/** The longest prefix of `items` within the budget (at least one item). */
export function fitItems<T>(items: readonly T[], budget = PAGE_BUDGET_CHARS): T[] {
  const kept: T[] = [];
  let used = 0;
  for (const item of items) {
    const size = JSON.stringify(item).length + MARKS_PER_ITEM;
    if (kept.length > 0 && used + size > budget) break;
    used += size;
    kept.push(item);
  }
  return kept;
}
