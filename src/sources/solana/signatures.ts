// Walking an address's signatures with getSignaturesForAddress: newest first, `before` to go
// back, `until` to stop at what an earlier walk already saw. Every walk has a page budget: a
// history that never ends (or a provider that cycles) costs a bounded number of calls per sync,
// becomes a named gap, and the walk resumes where it stopped at the next sync. A page that
// cannot be fetched ends the walk with the reason, so the caller records a gap instead of
// assuming the history ended there.
import type { Rpc } from "./rpc";
import type { WireSignatureInfo } from "./wire";

export const SIGNATURE_PAGE_LIMIT = 1000;
/** Pages one walk may read per sync (10 × 1000 signatures); the rest waits for the next sync. */
export const DEFAULT_MAX_PAGES = 10;

/**
 * Where a walk of one address stands. `newest` is the newest signature below which the whole
 * history was walked. A walk cut short by its budget keeps `resume`: the next walk goes on from
 * `resume.before` down to `resume.until` (the older cursor; null: to the very start), and once
 * that stretch is done `newest` moves up to `resume.newest`.
 */
export interface WalkCursor {
  newest: string | null;
  /** The slot of `newest`, kept by walks that resume from a slot (getTransactionsForAddress). */
  newestSlot?: number | null;
  resume: { before: string; until: string | null; newest: string } | null;
}

export interface SignatureWalk {
  /** Newest first, without duplicates: the signatures this walk listed. */
  signatures: WireSignatureInfo[];
  /** Why the walk did not reach its end: a failed page, a cycling provider, or the page budget. */
  error: string | null;
  /** True when `error` is only the page budget (the walk resumes next time; nothing is lost). */
  capped: boolean;
  pages: number;
  /** Where the walk stands now; equal to the input when a page failed. */
  cursor: WalkCursor;
}

export interface WalkOptions {
  pageLimit?: number;
  maxPages?: number;
}

export const EMPTY_CURSOR: WalkCursor = { newest: null, resume: null };

/** Walks what is new since `cursor` (finishing a resumed stretch first), within the page budget. */
export async function walkAddress(rpc: Rpc, address: string, cursor: WalkCursor = EMPTY_CURSOR, options: WalkOptions = {}): Promise<SignatureWalk> {
  const limit = options.pageLimit ?? SIGNATURE_PAGE_LIMIT;
  let budget = options.maxPages ?? DEFAULT_MAX_PAGES;
  const listed: WireSignatureInfo[] = [];
  let pages = 0;
  let at = cursor;
  if (at.resume) {
    const older = await walkStretch(rpc, address, { before: at.resume.before, until: at.resume.until ?? undefined }, limit, budget);
    listed.push(...older.signatures);
    pages += older.pages;
    budget -= older.pages;
    if (older.error) return { signatures: listed, error: older.error, capped: false, pages, cursor: at };
    if (older.capped) {
      const before = older.signatures.at(-1)?.signature ?? at.resume.before;
      return { signatures: listed, error: cappedReason(pages), capped: true, pages, cursor: { ...at, resume: { ...at.resume, before } } };
    }
    at = { newest: at.resume.newest, resume: null };
  }
  if (budget <= 0) {
    return { signatures: listed, error: cappedReason(pages), capped: true, pages, cursor: at };
  }
  const newer = await walkStretch(rpc, address, { until: at.newest ?? undefined }, limit, budget);
  listed.push(...newer.signatures);
  pages += newer.pages;
  if (newer.error) return { signatures: listed, error: newer.error, capped: false, pages, cursor: at };
  const newest = newer.signatures[0]?.signature;
  if (newer.capped) {
    // Everything from `newest` down to the oldest listed is in hand; below it, down to the old
    // cursor, is the stretch the next walks resume.
    const resume = { before: newer.signatures.at(-1)!.signature, until: at.newest, newest: newest! };
    return { signatures: listed, error: cappedReason(pages), capped: true, pages, cursor: { newest: at.newest, resume } };
  }
  return { signatures: listed, error: null, capped: false, pages, cursor: { newest: newest ?? at.newest, resume: null } };
}

const cappedReason = (pages: number) => `history walk stopped after ${pages} pages (the per-sync budget); the next sync resumes it`;

interface Stretch {
  signatures: WireSignatureInfo[];
  error: string | null;
  capped: boolean;
  pages: number;
}

/** Pages from `before` (newest when absent) down to `until` (exclusive), at most `maxPages`. */
async function walkStretch(rpc: Rpc, address: string, range: { before?: string; until?: string }, limit: number, maxPages: number): Promise<Stretch> {
  const seen = new Set<string>();
  const signatures: WireSignatureInfo[] = [];
  let before = range.before;
  let pages = 0;
  for (;;) {
    if (pages >= maxPages) return { signatures, error: null, capped: true, pages };
    let page: WireSignatureInfo[];
    try {
      page = await rpc.getSignaturesForAddress(address, { before, until: range.until, limit });
    } catch (err) {
      const where = before ? `before ${before}` : "newest page";
      return { signatures, error: `signature page (${where}) unavailable: ${(err as Error).message}`, capped: false, pages };
    }
    pages++;
    let fresh = 0;
    for (const s of page) {
      if (seen.has(s.signature)) continue;
      seen.add(s.signature);
      signatures.push(s);
      fresh++;
    }
    if (page.length < limit) return { signatures, error: null, capped: false, pages };
    // A page with nothing new means the provider is not paging (it ignores `before`, or cycles).
    if (fresh === 0) return { signatures, error: `signature paging repeats itself after ${pages} pages (before ${before ?? "newest"})`, capped: false, pages };
    before = page[page.length - 1]!.signature;
  }
}
