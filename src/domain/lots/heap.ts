// A binary heap: the lot a disposal takes next sits on top, found in O(1), removed or inserted in
// O(log n). A wallet buying daily holds hundreds of lots; a sorted list would make each disposal
// or own transfer in pay for the whole list.

export class Heap<T> {
  private items: T[] = [];

  /** `before(a, b)`: a is taken before b. Must be a strict total order on the items. */
  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** Every item, in no particular order (for scaling and listing). */
  all(): readonly T[] {
    return this.items;
  }

  push(item: T): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(a[i]!, a[parent]!)) break;
      [a[i], a[parent]] = [a[parent]!, a[i]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    a[0] = last;
    this.siftDown(0);
    return top;
  }

  /** The top item changed its key (a lot partly taken): move it to where it now belongs. */
  fixTop(): void {
    this.siftDown(0);
  }

  private siftDown(i: number): void {
    const a = this.items;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < a.length && this.before(a[l]!, a[best]!)) best = l;
      if (r < a.length && this.before(a[r]!, a[best]!)) best = r;
      if (best === i) return;
      [a[i], a[best]] = [a[best]!, a[i]!];
      i = best;
    }
  }

  /** Remove and return every item (in no particular order). */
  drain(): T[] {
    const all = this.items;
    this.items = [];
    return all;
  }
}
