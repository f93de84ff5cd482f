// The documentation pages an agent reads to explain a number: the action types and their
// treatments, the income breakdown and the year report, the tax treatments of lots, and how a
// multiplier becomes a quantity (docs/mcp.md#resources). Embedded in the binary, so they are the
// pages of the version that computed the numbers.
import actionTypes from "../../docs/action-types.md" with { type: "text" };
import incomeAndTax from "../../docs/income-and-tax.md" with { type: "text" };
import lots from "../../docs/lots.md" with { type: "text" };
import scaledUiAmount from "../../docs/scaled-ui-amount.md" with { type: "text" };
import type { McpPrincipal, McpResource } from "./server.ts";

const pages: { file: string; text: string; title: string; description: string }[] = [
  {
    file: "action-types.md",
    text: actionTypes,
    title: "Action types, treatments and booking",
    description:
      "The 18 corporate action types, the treatment of each (income, quantity and basis, basis allocation, identity, not booked), how each is booked, plausibility, retention and the validation census.",
  },
  {
    file: "income-and-tax.md",
    text: incomeAndTax,
    title: "Income breakdown, the year report and tax exports",
    description: "Gross, withholding tax, retention and net of every income entry; how amounts are rounded for people; date filters; the year report and its currencies.",
  },
  {
    file: "lots.md",
    text: lots,
    title: "Lots, cost basis and realized gains",
    description: "The two tax treatments (income, deferred), the lot methods, what corporate actions do to lots, terms, realized gains and the holdings reconciliation, with worked examples.",
  },
  {
    file: "scaled-ui-amount.md",
    text: scaledUiAmount,
    title: "Scaled UI Amount: how a multiplier becomes a quantity",
    description: "Why a holder's raw balance never changes on a corporate action, and how the mint's multiplier turns it into the quantity a wallet shows.",
  },
];

/** The pages as resources, at `ca-ledger://docs/<file>` so their links to each other resolve. */
export function docsResources<P extends McpPrincipal>(): McpResource<P>[] {
  return pages.map((p) => ({
    uri: `ca-ledger://docs/${p.file}`,
    name: p.file.replace(/\.md$/, ""),
    title: p.title,
    description: p.description,
    mimeType: "text/markdown",
    read: () => p.text,
  }));
}
