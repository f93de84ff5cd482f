// A wallet's corporate actions, newest first, a page at a time: type, treatment, lifecycle, and
// for income the breakdown the server rounded (gross, withholding tax, net USD).
import type { ActionsList } from "@ca-ledger/client";
import { useLedger, walletsOf } from "../src/context.ts";
import { breakdownCents, dateText, percentText, shortAddress, words } from "../src/format.ts";
import { useLoad } from "../src/load.ts";
import { href, useRoute } from "../src/route.ts";
import { Quantity, Usd } from "./amounts.tsx";
import { NoWallets } from "./Holdings.tsx";
import { Await, Empty } from "./states.tsx";

const pageSize = 50;

export function WalletPicker({ owners, owner, onPick }: { owners: string[]; owner: string; onPick: (owner: string) => void }) {
  return (
    <label class="inline">
      Wallet{" "}
      <select id="wallet" value={owner} onChange={(e) => onPick((e.target as HTMLSelectElement).value)}>
        {owners.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

export function Actions() {
  const ledger = useLedger();
  const loaded = useLoad("wallets", () => walletsOf(ledger));
  const route = useRoute();
  return (
    <section>
      <h1>Corporate actions</h1>
      <Await loaded={loaded} what="wallets">
        {({ wallets }) => {
          if (wallets.length === 0) return <NoWallets />;
          const owners = wallets.map((w) => w.owner);
          const asked = route.query.get("owner");
          const owner = asked && owners.includes(asked) ? asked : owners[0]!;
          const offset = Math.max(0, Number(route.query.get("offset")) || 0);
          return (
            <>
              <div class="toolbar">
                <WalletPicker
                  owners={owners}
                  owner={owner}
                  onPick={(o) => {
                    location.hash = href("actions", null, { owner: o });
                  }}
                />
              </div>
              <ActionsPage owner={owner} offset={offset} />
            </>
          );
        }}
      </Await>
    </section>
  );
}

function ActionsPage({ owner, offset }: { owner: string; offset: number }) {
  const ledger = useLedger();
  const loaded = useLoad(`actions:${owner}:${offset}`, () => ledger.api.v2.actions(owner, { limit: pageSize, offset }));
  return (
    <Await loaded={loaded} what="actions">
      {(page) => (page.actions.length === 0 ? <Empty title="No corporate actions for this wallet yet." /> : <ActionsTable page={page} owner={owner} offset={offset} />)}
    </Await>
  );
}

function ActionsTable({ page, owner, offset }: { page: ActionsList; owner: string; offset: number }) {
  return (
    <>
      <table class="data" id="actions">
        <thead>
          <tr>
            <th>Effective</th>
            <th>Instrument</th>
            <th>Type</th>
            <th>Treatment</th>
            <th>Lifecycle</th>
            <th class="r">Quantity</th>
            <th class="r">Gross USD</th>
            <th class="r">Withheld</th>
            <th class="r">Net USD</th>
          </tr>
        </thead>
        <tbody>
          {page.actions.map((a) => {
            const shown = breakdownCents({ gross: a.exact.grossUsd, withheld: a.exact.withholdingTaxUsd, retained: a.exact.retainedUsd, net: a.exact.usd });
            return (
              <tr key={a.id}>
                <td>{dateText(a.effectiveAt)}</td>
                <td>{a.symbol ?? shortAddress(a.mint)}</td>
                <td>
                  <a href={href("actions", a.id, { owner })}>{words(a.type)}</a>
                  {a.warnings.length > 0 && (
                    <span class="warn-dot" title={a.warnings.join("\n")}>
                      {" "}
                      ⚠
                    </span>
                  )}
                </td>
                <td>
                  <span class={`badge t-${a.treatment}`}>{words(a.treatment)}</span>
                </td>
                <td>
                  <span class={`badge l-${a.lifecycle.state}`}>{words(a.lifecycle.state)}</span>
                </td>
                <td class="r">
                  <Quantity value={a.quantityDisplay} />
                </td>
                {a.treatment === "income" ? (
                  <>
                    <td class="r">
                      <Usd value={a.grossUsd} exact={a.exact.grossUsd} shown={shown.gross} />
                    </td>
                    <td class="r">
                      <Usd value={a.withholdingTaxUsd} exact={a.exact.withholdingTaxUsd} shown={shown.withheld} />
                      {a.withholdingTaxRate !== null && a.withholdingTaxRate !== "0" && <span class="muted small"> ({percentText(a.withholdingTaxRate)})</span>}
                    </td>
                    <td class="r">
                      <Usd value={a.usd} exact={a.exact.usd} shown={shown.net} />
                    </td>
                  </>
                ) : (
                  <td class="r muted" colSpan={3}>
                    —
                  </td>
                )}
              </tr>
            );
          })}
        </tbody>
      </table>
      <div class="pager">
        <span class="muted">
          {offset + 1}–{offset + page.actions.length} of {page.total}
        </span>
        {offset > 0 && (
          <a class="button secondary" href={href("actions", null, { owner, offset: Math.max(0, offset - pageSize) })}>
            Newer
          </a>
        )}
        {page.nextOffset !== null && (
          <a class="button secondary" href={href("actions", null, { owner, offset: page.nextOffset })}>
            Older
          </a>
        )}
      </div>
    </>
  );
}
