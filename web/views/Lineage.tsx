// An instrument's lineage: where its name comes from, the identities it had, the links between
// them (identity changes, spin-offs and rights distributions with what they distributed,
// terminations) and where the first identity's cost basis sits now, each distribution on its own.
import type { AssetsResponse, LineageResponse } from "@ca-ledger/client";
import { useLedger } from "../src/context.ts";
import { dateText, percentText, shortAddress, words } from "../src/format.ts";
import { useLoad } from "../src/load.ts";
import { href } from "../src/route.ts";
import { assetsOf } from "./Holdings.tsx";
import { Await, Empty } from "./states.tsx";

export function Lineage({ mint }: { mint: string | null }) {
  const ledger = useLedger();
  const assets = useLoad("assets", () => assetsOf(ledger));
  return (
    <section>
      <h1>Lineage</h1>
      <Await loaded={assets} what="instruments">
        {({ assets: list }) =>
          list.length === 0 ? (
            <Empty title="The ledger knows no instrument yet.">Instruments appear once a wallet holding one has synced.</Empty>
          ) : (
            <>
              <div class="toolbar">
                <label class="inline">
                  Instrument{" "}
                  <select
                    id="instrument"
                    value={mint ?? ""}
                    onChange={(e) => {
                      location.hash = href("lineage", (e.target as HTMLSelectElement).value);
                    }}
                  >
                    {mint === null && <option value="">Choose…</option>}
                    {list.map((a) => (
                      <option key={a.mint} value={a.mint}>
                        {a.symbol}
                        {a.underlying ? ` (${a.underlying})` : ""}
                      </option>
                    ))}
                  </select>
                </label>
              </div>
              {mint === null ? <Empty title="Choose an instrument to see its identities and where its basis went." /> : <LineageOf mint={mint} asset={list.find((a) => a.mint === mint)} />}
            </>
          )
        }
      </Await>
    </section>
  );
}

type Asset = AssetsResponse["assets"][number];

function LineageOf({ mint, asset }: { mint: string; asset: Asset | undefined }) {
  const ledger = useLedger();
  const loaded = useLoad(`lineage:${mint}`, () => ledger.api.v2.lineage(mint));
  return (
    <Await loaded={loaded} what="the lineage">
      {(lineage) => <LineageTables lineage={lineage} asset={asset} />}
    </Await>
  );
}

/** Where the instrument's name comes from: the issuer's feed, or the mint's own Token-2022 metadata (with its URI). */
function NameSource({ asset }: { asset: Asset | undefined }) {
  if (!asset) return <>not known to the ledger yet</>;
  if (asset.source === "xstocks") return <>the xStocks issuer feed{asset.name ? ` (“${asset.name}”)` : ""}</>;
  return (
    <>
      the mint's own Token-2022 metadata{asset.name ? ` (“${asset.name}”)` : ""}: no issuer feed lists it
      {asset.uri && (
        <>
          ; metadata URI <code class="hash">{asset.uri}</code>
        </>
      )}
    </>
  );
}

function LineageTables({ lineage, asset }: { lineage: LineageResponse; asset: Asset | undefined }) {
  return (
    <>
      <dl class="facts" id="instrument-facts">
        <dt>Mint</dt>
        <dd>
          <code>{lineage.mint}</code>
        </dd>
        <dt>Name from</dt>
        <dd id="name-source">
          <NameSource asset={asset} />
        </dd>
      </dl>
      <h2>Identities</h2>
      <table class="data" id="identities">
        <thead>
          <tr>
            <th>Symbol</th>
            <th>Underlying</th>
            <th>ISIN</th>
            <th>Valid from</th>
          </tr>
        </thead>
        <tbody>
          {lineage.identities.map((i, n) => (
            <tr key={n}>
              <td>{i.symbol}</td>
              <td>{i.underlying ?? "—"}</td>
              <td>{i.isin ?? "—"}</td>
              <td>{i.validFrom ? dateText(i.validFrom) : "from the start"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Links</h2>
      {lineage.links.length === 0 ? (
        <Empty title="No identity change, spin-off, rights distribution or termination for this instrument." />
      ) : (
        <table class="data" id="links">
          <thead>
            <tr>
              <th>Link</th>
              <th>From</th>
              <th>To</th>
              <th>What was distributed</th>
              <th class="r">Basis kept</th>
              <th class="r">Distributed or paid out</th>
              <th>When</th>
            </tr>
          </thead>
          <tbody>
            {lineage.links.map((l, n) => (
              <tr key={n}>
                <td>{words(l.type)}</td>
                <td>{l.from}</td>
                <td>{l.to ?? "—"}</td>
                <td class="distributed">{l.distributed ? <Distributed d={l.distributed} /> : <span class="muted">—</span>}</td>
                <td class="r" title={l.basisFraction}>
                  {percentText(l.basisFraction)}
                </td>
                <td class="r" title={l.cashFraction}>
                  {percentText(l.cashFraction)}
                </td>
                <td>{dateText(l.at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Where the original basis sits now</h2>
      <table class="data" id="basis">
        <thead>
          <tr>
            <th>Holding</th>
            <th>Kind</th>
            <th class="r">Share of basis</th>
          </tr>
        </thead>
        <tbody>
          {lineage.basisNowSits.map((b, n) => (
            <tr key={n}>
              <td>
                {b.distributed ? (
                  <span title={b.distributed.description}>
                    {b.distributed.holding}
                    {b.at && <span class="muted"> ({dateText(b.at)})</span>}
                  </span>
                ) : b.holding.length > 20 ? (
                  <code title={b.holding}>{shortAddress(b.holding)}</code>
                ) : (
                  b.holding
                )}
              </td>
              <td>{words(b.kind)}</td>
              <td class="r" title={b.fraction}>
                {percentText(b.fraction)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

type DistributedView = NonNullable<LineageResponse["links"][number]["distributed"]>;

/** What a distribution distributed, in words, and who named it (an operator record, the issuer's note, or nobody). */
export function Distributed({ d }: { d: DistributedView }) {
  const by = d.namedBy === "operator" ? "Named by an operator record (distributedName)" : d.namedBy === "issuer" ? "Named in the issuer's note" : "The issuer's records do not name it";
  return <span title={by}>{d.description}</span>;
}
