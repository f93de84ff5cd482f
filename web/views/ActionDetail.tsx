// One action with everything behind it: for income its breakdown (gross, withheld, retained, net),
// its lifecycle, every issuer revision with its hash and source, the chain evidence, the six
// timestamps and its journal history (exact amounts, rounded here by the ledger's rule).
import type { ActionDetail as Detail } from "@ca-ledger/client";
import type { ComponentChildren } from "preact";
import { useLedger } from "../src/context.ts";
import { breakdownCents, dateTimeText, factorText, percentText, quantityOfExact, words } from "../src/format.ts";
import { useLoad } from "../src/load.ts";
import { href, useRoute } from "../src/route.ts";
import { Hash, Quantity, Usd } from "./amounts.tsx";
import { Distributed } from "./Lineage.tsx";
import { Await, Empty } from "./states.tsx";

export function ActionDetail({ id }: { id: string }) {
  const ledger = useLedger();
  const owner = useRoute().query.get("owner") ?? "";
  const loaded = useLoad(`action:${owner}:${id}`, () => ledger.api.v2.action(owner, id));
  return (
    <section>
      <p>
        <a href={href("actions", null, { owner })}>← All actions of this wallet</a>
      </p>
      <Await loaded={loaded} what="the action">
        {(action) => <DetailOf action={action} />}
      </Await>
    </section>
  );
}

function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

function DetailOf({ action }: { action: Detail }) {
  return (
    <>
      <h1>
        {words(action.type)} · {action.symbol ?? action.mint}
        <span class={`badge t-${action.treatment}`}>{words(action.treatment)}</span>
        <span class={`badge l-${action.lifecycle.state}`}>{words(action.lifecycle.state)}</span>
      </h1>
      {action.warnings.length > 0 && (
        <ul class="warnings">
          {action.warnings.map((w) => (
            <li key={w}>{w}</li>
          ))}
        </ul>
      )}
      <dl class="facts">
        <Field label="Effective">{dateTimeText(action.effectiveAt)}</Field>
        <Field label="Quantity change">
          <Quantity value={action.quantityDisplay} />
        </Field>
        <Field label="Units before → after">
          <Quantity value={action.unitsBefore} exact={action.exact.unitsBefore} /> → <Quantity value={action.unitsAfter} exact={action.exact.unitsAfter} />
        </Field>
        {action.factor !== null && (
          <Field label="Factor">
            <span title={action.factor}>{factorText(action.factor)}</span>
          </Field>
        )}
        {action.proceedsUsd !== null && (
          <Field label="Proceeds (not income)">
            <Usd value={action.proceedsUsd} exact={action.exact.proceedsUsd} />
          </Field>
        )}
        <Field label="Validation">
          {words(action.validation.status)} ({action.validation.realInstances} real cases)
        </Field>
        {action.reason && <Field label="Why">{action.reason}</Field>}
        <Field label="Evidence hash">
          <Hash value={action.evidenceSha256} />
        </Field>
      </dl>
      {action.treatment === "income" && <Breakdown action={action} />}
      <Lifecycle action={action} />
      <Revisions action={action} />
      <ChainEvidence action={action} />
      <Journal action={action} />
      <h2>Lineage</h2>
      <p id="action-lineage">
        <LinkText link={action.lineageLink} />
        <a href={href("lineage", action.mint)}>Lineage of {action.symbol ?? "this instrument"}</a>
      </p>
    </>
  );
}

/** The income as the issuer broke it down: gross, tax withheld, what it retained, net, in cents that add up. */
function Breakdown({ action: a }: { action: Detail }) {
  const rate = (r: string | null) => (r === null ? null : <span class="muted"> at {percentText(r)}</span>);
  const shown = breakdownCents({ gross: a.exact.grossUsd, withheld: a.exact.withholdingTaxUsd, retained: a.exact.retainedUsd, net: a.exact.usd });
  return (
    <>
      <h2>Income</h2>
      <dl class="facts" id="breakdown">
        <Field label="Gross USD">
          <Usd value={a.grossUsd} exact={a.exact.grossUsd} shown={shown.gross} />
        </Field>
        <Field label="Withholding tax">
          <Usd value={a.withholdingTaxUsd} exact={a.exact.withholdingTaxUsd} shown={shown.withheld} />
          {rate(a.withholdingTaxRate)}
        </Field>
        <Field label="Retained by the issuer">
          <Usd value={a.retainedUsd} exact={a.exact.retainedUsd} shown={shown.retained} />
          {rate(a.retentionRate)}
        </Field>
        <Field label="Net USD">
          <strong>
            <Usd value={a.usd} exact={a.exact.usd} shown={shown.net} />
          </strong>
        </Field>
        <Field label="Units received">
          <Quantity value={a.incomeUnits} exact={a.exact.incomeUnits} />
        </Field>
        {a.refundNote && <Field label="Refund">{a.refundNote}</Field>}
      </dl>
      <p class="muted small">
        Withholding is tax only (negative when tax withheld earlier is refunded); a retention is what the issuer kept back for currency or fees. Where every part is known, gross = net + withheld +
        retained.
      </p>
    </>
  );
}

function Lifecycle({ action }: { action: Detail }) {
  return (
    <>
      <h2>Lifecycle</h2>
      <ol class="steps" id="lifecycle">
        {action.lifecycle.steps.map((s, i) => (
          <li key={i}>
            <span class={`badge l-${s.state}`}>{words(s.state)}</span> <span class="muted">{dateTimeText(s.at)}</span>
            {s.revision && (
              <span class="muted">
                {" "}
                · revision {s.revision.eventId} v{s.revision.version}
              </span>
            )}
            <div>{s.note}</div>
          </li>
        ))}
      </ol>
      <dl class="facts">
        <Field label="Issuer effective">{dateTimeText(action.timestamps.issuerEffectiveAt)}</Field>
        <Field label="Issuer created">{dateTimeText(action.timestamps.issuerCreatedAt)}</Field>
        <Field label="Configured activation">{dateTimeText(action.timestamps.configuredActivationAt)}</Field>
        <Field label="Published on chain">{dateTimeText(action.timestamps.publicationBlockTime)}</Field>
        <Field label="First seen active">{dateTimeText(action.timestamps.firstObservedActiveAt)}</Field>
        <Field label="Ingested">{dateTimeText(action.timestamps.ingestedAt)}</Field>
      </dl>
    </>
  );
}

const revisionSources: Record<Detail["revisions"][number]["source"], string> = {
  xstocks: "From the issuer's own feed (the xStocks API)",
  operator: "Imported by the ledger's operator (ca-ledger import issuer-records), for a mint no feed covers",
};

function Revisions({ action }: { action: Detail }) {
  return (
    <>
      <h2>Issuer revisions ({action.revisions.length})</h2>
      {action.revisions.length === 0 ? (
        <Empty title="No issuer record matches this action." />
      ) : (
        <table class="data" id="revisions">
          <thead>
            <tr>
              <th>Event</th>
              <th>Version</th>
              <th>Status</th>
              <th>Type</th>
              <th>Source</th>
              <th>Standing</th>
              <th>Ingested</th>
              <th>SHA-256</th>
            </tr>
          </thead>
          <tbody>
            {action.revisions.map((r) => (
              <tr key={`${r.eventId}:${r.version}`} class={action.matched?.sha256 === r.sha256 ? "matched" : ""}>
                <td>
                  <code>{r.eventId}</code>
                </td>
                <td>
                  v{r.version}
                  {r.edited && <span class="muted"> (edited)</span>}
                </td>
                <td>{r.status}</td>
                <td>{r.caType}</td>
                <td>
                  <span class={`badge src-${r.source}`} title={revisionSources[r.source]}>
                    {r.source === "xstocks" ? "xStocks feed" : "Operator"}
                  </span>
                </td>
                <td>
                  {words(r.standing)}
                  {action.matched?.sha256 === r.sha256 && <strong> · matched</strong>}
                </td>
                <td>{dateTimeText(r.ingestedAt)}</td>
                <td>
                  <Hash value={r.sha256} />
                  <details>
                    <summary>record</summary>
                    <pre>{JSON.stringify(r.record, null, 2)}</pre>
                  </details>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

function ChainEvidence({ action }: { action: Detail }) {
  const c = action.chain;
  return (
    <>
      <h2>Chain evidence</h2>
      <dl class="facts" id="chain">
        <Field label="Signature">{c.signature ? <code class="hash">{c.signature}</code> : "— (not yet on chain)"}</Field>
        <Field label="Slot">{c.slot ?? "—"}</Field>
        <Field label="Block time">{dateTimeText(c.blockTime)}</Field>
        <Field label="Multiplier">
          <span title={c.multiplierOld ?? ""}>{factorText(c.multiplierOld, 12)}</span> → <span title={c.multiplierNew ?? ""}>{factorText(c.multiplierNew, 12)}</span>
        </Field>
        <Field label="Scheduled for">{dateTimeText(c.scheduledAt)}</Field>
        <Field label="Effective on chain">{dateTimeText(c.effectiveAt)}</Field>
        {c.updateSignature && (
          <Field label="Update signature">
            <code class="hash">{c.updateSignature}</code>
          </Field>
        )}
        <Field label="Chain key">
          <Hash value={action.evidence.chainKey} />
        </Field>
        <Field label="Matched revision">
          <Hash value={action.evidence.matchedRevisionSha256} />
        </Field>
        <Field label="Raw balance">{action.rawBalance}</Field>
      </dl>
    </>
  );
}

function Journal({ action }: { action: Detail }) {
  return (
    <>
      <h2>Journal history</h2>
      {action.journal.length === 0 ? (
        <Empty title="Nothing booked for this action.">Actions that are not income or quantity changes (or only announced) have no journal entry.</Empty>
      ) : (
        <table class="data" id="journal">
          <thead>
            <tr>
              <th>#</th>
              <th>Entry</th>
              <th class="r">Units</th>
              <th class="r">Income units</th>
              <th class="r">USD</th>
              <th>Why</th>
              <th>Booked</th>
              <th>Evidence</th>
            </tr>
          </thead>
          <tbody>
            {action.journal.map((j) => (
              <tr key={j.id}>
                <td>{j.id}</td>
                <td>
                  {words(j.entryType)}
                  {j.reversesId !== null && ` of #${j.reversesId}`}
                </td>
                <td class="r">
                  <Quantity value={quantityOfExact(j.unitsDelta, action.decimals)} exact={j.unitsDelta} />
                </td>
                <td class="r">
                  <Quantity value={quantityOfExact(j.incomeUnits, action.decimals)} exact={j.incomeUnits} />
                </td>
                <td class="r">
                  <Usd exact={j.usd} />
                </td>
                <td>{j.changeReason ?? "—"}</td>
                <td>{dateTimeText(j.createdAt)}</td>
                <td>
                  <Hash value={j.evidenceSha256} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/**
 * The link an action wrote, in words: a distribution says what was distributed and the share of
 * the basis that went with it ("Spin-off: a holding distributed by HON, sold by the issuer and
 * reinvested in HONx (not named by the issuer); 48.75% of the basis."), never "HON → HON".
 */
function LinkText({ link }: { link: Detail["lineageLink"] }) {
  if (!link) return <>This action links no identities. </>;
  if (link.distributed)
    return (
      <>
        {words(link.type)}: <Distributed d={link.distributed} />; <span title={link.cashFraction}>{percentText(link.cashFraction)}</span> of the basis.{" "}
      </>
    );
  return (
    <>
      {words(link.type)}: {link.from} → {link.to ?? "(terminated)"}.{" "}
    </>
  );
}
