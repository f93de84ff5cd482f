// Paging getSignaturesForAddress: newest first, `before` to go back, `until` to stop at the
// cursor of the previous sync. A page that cannot be fetched ends the walk with the reason, so
// the caller records a gap instead of assuming the history ended there.
import type { Rpc } from "./rpc";
import type { WireSignatureInfo } from "./wire";

export const SIGNATURE_PAGE_LIMIT = 1000;

export interface SignatureWalk {
  /** Newest first, without duplicates. */
  signatures: WireSignatureInfo[];
  /** Set when a page failed after the RPC's retries: the history older than `signatures` is unknown. */
  error: string | null;
  pages: number;
}

export interface WalkOptions {
  /** Stop at this signature (exclusive): the newest one a previous sync saw. */
  until?: string;
  pageLimit?: number;
  /** Called after each page; returning true stops the walk (all the caller needs is in hand). */
  stopAfter?: (page: WireSignatureInfo[]) => boolean;
}

export async function walkSignatures(rpc: Rpc, address: string, options: WalkOptions = {}): Promise<SignatureWalk> {
  const limit = options.pageLimit ?? SIGNATURE_PAGE_LIMIT;
  const seen = new Set<string>();
  const signatures: WireSignatureInfo[] = [];
  let before: string | undefined;
  let pages = 0;
  for (;;) {
    let page: WireSignatureInfo[];
    try {
      page = await rpc.getSignaturesForAddress(address, { before, until: options.until, limit });
    } catch (err) {
      const where = before ? `before ${before}` : "newest page";
      return { signatures, error: `signature page (${where}) unavailable: ${(err as Error).message}`, pages };
    }
    pages++;
    for (const s of page) {
      if (seen.has(s.signature)) continue;
      seen.add(s.signature);
      signatures.push(s);
    }
    if (page.length < limit) return { signatures, error: null, pages };
    if (options.stopAfter?.(page)) return { signatures, error: null, pages };
    const last = page[page.length - 1].signature;
    if (last === before) {
      // A node that ignores `before` would loop forever; say so instead.
      return { signatures, error: `signature paging did not advance past ${last}`, pages };
    }
    before = last;
  }
}
