// Pending actions on the home view: the multiplier changes known for the tenant's wallets and not
// in force yet (GET /v2/calendar), when each is expected and what each wallet can expect. The
// live stream refreshes it when the mint poll or the issuer brings a new one.
import type { CalendarResponse } from "@ca-ledger/client";
import { cached } from "../src/api.ts";
import { useLedger } from "../src/context.ts";
import { dateTimeText, shortAddress, words } from "../src/format.ts";
import { useLoad } from "../src/load.ts";
import { href } from "../src/route.ts";
import { Quantity, Usd } from "./amounts.tsx";
import { Await } from "./states.tsx";

type PendingAction = CalendarResponse["actions"][number];

export function Pending() {
  const ledger = useLedger();
  const loaded = useLoad("calendar", () => cached(ledger.cache, "calendar", () => ledger.api.v2.calendar()));
  return (
    <section id="pending" aria-labelledby="pending-title">
      <h2 id="pending-title">Pending actions</h2>
      <Await loaded={loaded} what="pending actions">
        {({ actions }) =>
          actions.length === 0 ? (
            <p class="muted" id="pending-none">
              No corporate action is scheduled or announced for your wallets.
            </p>
          ) : (
            <PendingTable actions={actions} />
          )
        }
      </Await>
    </section>
  );
}

function PendingTable({ actions }: { actions: PendingAction[] }) {
  return (
    <table class="data" id="pending-actions">
      <thead>
        <tr>
          <th>Expected</th>
          <th>Instrument</th>
          <th>Action</th>
          <th>State</th>
          <th>Wallet</th>
          <th class="r">Expected units</th>
          <th class="r">Expected USD</th>
        </tr>
      </thead>
      <tbody>
        {actions.flatMap((a) =>
          a.wallets.map((w, i) => (
            <tr key={`${a.key}:${w.owner}`}>
              <td>{i === 0 ? dateTimeText(a.expectedAt) : ""}</td>
              <td>{i === 0 ? <a href={href("lineage", a.mint)}>{a.symbol}</a> : ""}</td>
              <td>{i === 0 ? words(a.type) : ""}</td>
              <td>
                {i === 0 ? (
                  <span class={`badge l-${a.state}`} title={a.state === "confirmed" ? "Written on chain, waiting for its time" : "Announced by the issuer, not on chain yet"}>
                    {a.state}
                  </span>
                ) : (
                  ""
                )}
              </td>
              <td>
                <a href={href("actions", null, { owner: w.owner })}>
                  <code title={w.owner}>{shortAddress(w.owner)}</code>
                </a>
              </td>
              <td class="r">{w.incomeUnitsShown === null ? <span class="unknown">not known yet</span> : <Quantity value={w.incomeUnitsShown} exact={w.incomeUnits ?? undefined} />}</td>
              <td class="r">
                <Usd exact={w.usd} why="Not known yet: the amount is set when the change takes effect" />
              </td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}
