// Terminations: the line ends (in cash, or partly in another line). Not booked: the units still
// move on chain but add nothing convertible; the lineage records a terminate link and the
// position is marked terminated.
import { bookNotBooked } from "../book";
import type { Classified } from "../classify";
import { reasonV1 } from "../v1";
import type { TypeRule } from "./rule";

const terminates = (reason: string) => ({
  category: "termination",
  treatment: "not_booked",
  v1Kind: "unclassified_adjustment",
  classify: (c: Classified) => {
    c.reason = reason;
  },
  book: bookNotBooked,
  lineage: "terminate",
  restatesBasis: false,
  v1: reasonV1,
}) as const;

export const cashMerger: TypeRule = {
  ...terminates("cash merger: the position ends in cash; not booked"),
  type: "cash_merger",
  label: "Cash merger",
  caTypes: ["cashmerger"],
};

export const mixedMerger: TypeRule = {
  ...terminates("cash and stock merger: not booked; the position is marked terminated"),
  type: "mixed_merger",
  label: "Cash and stock merger",
  caTypes: ["mixedmerger", "cashandstockmerger", "stockandcashmerger"],
};

export const redemption: TypeRule = {
  ...terminates("redemption: the position is redeemed for cash; not booked"),
  type: "redemption",
  label: "Redemption",
  caTypes: ["redemption"],
};

export const delisting: TypeRule = {
  ...terminates("delisting: the instrument ends; not booked"),
  type: "delisting",
  label: "Delisting",
  caTypes: ["delisting"],
};
