// What an action record is assembled from (src/domain/actions.ts): a chain transition classified
// and booked for one wallet, or an action with no multiplier change of its own (an announced
// issuer event, a custody transfer, src/domain/rules/custody.ts).
import type { BookingFacts } from "./book";
import type { Classified } from "./classified";
import type { Rat } from "./numbers";
import type { IssuerRevisionObs } from "./observations";
import type { EventRevisions } from "./revisions";
import type { ActionType, ChainEvidence, Lifecycle, LineageLinkView } from "./types";

/** One wallet's holding through a classified chain transition, booked. */
export interface TransitionActionInput {
  owner: string;
  symbol: string;
  decimals: number;
  raw: bigint;
  c: Classified;
  facts: BookingFacts;
  event: EventRevisions | null;
  lifecycle: Lifecycle;
  firstObservedActiveAt: string | null;
  /** The lineage link the transition wrote once activated (src/domain/lineage.ts), if any. */
  lineageLink: LineageLinkView | null;
}

/** An action with no multiplier change of its own: an announced issuer event, a custody transfer. */
export interface PlainActionInput {
  owner: string;
  mint: string;
  symbol: string;
  decimals: number;
  key: string;
  type: ActionType;
  reason: string;
  raw: bigint;
  unitsBefore: Rat;
  unitsAfter: Rat;
  effectiveAt: string | null;
  event: EventRevisions | null;
  revision: IssuerRevisionObs | null;
  lifecycle: Lifecycle;
  chain?: ChainEvidence;
  warnings?: string[];
  /** The change as the holder's wallet showed it, when it is a change of displayed amounts. */
  quantityDisplay?: string;
}
