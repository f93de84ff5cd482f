// Terminations: the line ends (in cash, or partly in another line). Not booked: the units still
// move on chain but add nothing convertible; the lineage records a terminate link and the
// position is marked terminated.
import type { Classified } from "../classified";
import type { TypeRule } from "./rule";
import { notBooked } from "./unknown";

const terminates = (reason: string) =>
  ({
    ...notBooked,
    category: "termination",
    classify: (c: Classified) => {
      c.reason = reason;
    },
    lineage: "terminate",
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
