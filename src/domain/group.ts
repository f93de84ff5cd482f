// Grouping items by a key in one pass (spreading into a new array per item would be quadratic in
// a wallet's size, and a replay groups every booking of every wallet). Pure, so the engine, the
// lot engine and the ledger share it.
export function groupBy<T, K>(items: Iterable<T>, key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
