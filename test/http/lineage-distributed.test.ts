// Spin-offs and rights distributions say what they distributed (docs/action-types.md#what-was-distributed),
// on the demo ledger served by the real server: HONx's two spin-offs, whose issuer records have null
// notes, read "a holding distributed by HON, sold by the issuer and reinvested in HONx (not named by
// the issuer)" in the lineage, in its actions' detail and reasons, each with its own share of the
// basis; KRAQx's rights distribution is a `rights_distribution` link naming KRAQW from the issuer's
// note. Then an operator record (`ca-ledger import issuer-records`' parser and store) names the
// 2025 spin-off SOLS: the lineage and the action name it, the record is hashed as given, no other
// action's evidence hash moves, and `verify` passes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as S from "../../schemas/index.ts";
import { canonicalJson, sha256Hex } from "../../src/domain/evidence.ts";
import { add, parseDecimal, ZERO } from "../../src/domain/numbers.ts";
import { bookEverythingDirty } from "../../src/ledger/booking.ts";
import { storeObservations } from "../../src/ledger/store.ts";
import { verifyLedger } from "../../src/ledger/verify.ts";
import { parseOperatorRecords } from "../../src/sources/operator/records.ts";
import { call, schemaErrors } from "../harness/index.ts";
import { serveDemoLedger, stopDemoLedger, type DemoServer } from "../support/demo-server.ts";
import { q } from "../support/sql.ts";

const HONX = "XsRbLZthfABAPAfumWNEJhPyiKDW6TvDVeAeW7oKqA2";
const KRAQX = "XsAiRejKuvLAdq9KtedrMSrabz7SWdzKoVK6Qgac1Ki";
const UNNAMED = "a holding distributed by HON, sold by the issuer and reinvested in HONx (not named by the issuer)";

let srv: DemoServer;
let owners: string[];

beforeAll(async () => {
  ({ srv, owners } = await serveDemoLedger());
});
afterAll(() => stopDemoLedger(srv));

type Lineage = import("../../client/src/index.ts").LineageResponse;
type Detail = import("../../client/src/index.ts").ActionDetail;

async function lineage(mint: string): Promise<Lineage> {
  const a = await call(srv.url, `/v2/instruments/${mint}/lineage`, { key: srv.key });
  expect(a.status).toBe(200);
  expect(schemaErrors(S.LineageResponse, a.body)).toEqual([]);
  return a.body;
}

/** Every action of the demo's wallets, with its detail. */
async function actions(): Promise<Detail[]> {
  const out: Detail[] = [];
  for (const owner of owners) {
    const list = (await call(srv.url, `/v2/actions?owner=${owner}&limit=200`, { key: srv.key })).body.actions as { id: string }[];
    for (const { id } of list) {
      const d = await call(srv.url, `/v2/actions/${encodeURIComponent(id)}?owner=${owner}`, { key: srv.key });
      expect(schemaErrors(S.ActionDetail, d.body)).toEqual([]);
      out.push(d.body);
    }
  }
  return out;
}

const sum = (fractions: string[]) => fractions.reduce((s, f) => add(s, parseDecimal(f)), ZERO);

describe("what a spin-off or rights distribution distributed", () => {
  test("HONx: each spin-off says plainly that the issuer did not name what it distributed, with its own share of the basis", async () => {
    const l = await lineage(HONX);
    expect(l.links.map((k) => [k.type, k.at, k.distributed])).toEqual([
      ["spin_off", "2025-10-30T23:55:00.000Z", { name: null, namedBy: null, holding: "a holding distributed by HON (not named by the issuer)", description: UNNAMED }],
      ["spin_off", "2026-06-29T23:55:00.000Z", { name: null, namedBy: null, holding: "a holding distributed by HON (not named by the issuer)", description: UNNAMED }],
    ]);
    // Each distribution's share: the line's share before it times its fraction; with the line's own, exactly 1.
    expect(l.basisNowSits.map((b) => [b.kind, b.holding, b.at ?? null])).toEqual([
      ["position", "HON", null],
      ["distributed", "a holding distributed by HON (not named by the issuer)", "2025-10-30T23:55:00.000Z"],
      ["distributed", "a holding distributed by HON (not named by the issuer)", "2026-06-29T23:55:00.000Z"],
    ]);
    const [kept, first, second] = l.basisNowSits.map((b) => parseDecimal(b.fraction));
    expect(sum(l.basisNowSits.map((b) => b.fraction))).toEqual({ n: 1n, d: 1n });
    expect(l.basisNowSits[1]!.fraction).toBe(l.links[0]!.cashFraction);
    expect(l.basisNowSits[2]!.fraction.startsWith("0.48216")).toBe(true); // 0.98910 kept × 0.48747 distributed
    expect(add(add(kept!, first!), second!)).toEqual({ n: 1n, d: 1n });
  });

  test("KRAQx: a rights distribution is its own link kind, naming KRAQW from the issuer's note", async () => {
    const l = await lineage(KRAQX);
    expect(l.links).toHaveLength(1);
    expect(l.links[0]).toMatchObject({
      type: "rights_distribution",
      from: "KRAQ",
      to: "KRAQ",
      distributed: { name: "KRAQW", namedBy: "issuer", holding: "KRAQW", description: "KRAQW, rights distributed by KRAQ, sold by the issuer and reinvested in KRAQx (named in the issuer's note)" },
    });
    expect(l.basisNowSits.map((b) => [b.kind, b.holding])).toEqual([
      ["position", "KRAQ"],
      ["distributed", "KRAQW"],
    ]);
  });

  test("an action's detail shows the link it wrote, with what was distributed; its reason says it too", async () => {
    const all = await actions();
    const honx = await lineage(HONX);
    const kraqx = await lineage(KRAQX);
    const spinOffs = all.filter((a) => a.type === "spin_off");
    expect(spinOffs.length).toBeGreaterThanOrEqual(2);
    for (const a of spinOffs) {
      const link = honx.links.find((k) => k.at === a.effectiveAt)!;
      expect(a.lineageLink).toEqual({ ...link, actionId: a.id });
      expect(a.reason).toContain("of the value distributed as a holding the issuer does not name");
    }
    const rights = all.find((a) => a.type === "rights_distribution")!;
    expect(rights.lineageLink).toEqual({ ...kraqx.links[0]!, actionId: rights.id });
    expect(rights.reason).toContain("of the value distributed as KRAQW");
    // An identity change still shows its link; an income action none.
    expect(all.find((a) => a.type === "identity_change")!.lineageLink).toMatchObject({ type: "identity_change", from: "NASDAQ:AZN (ADR)", to: "NYSE:AZN" });
    expect(all.filter((a) => a.treatment === "income").every((a) => a.lineageLink === null)).toBe(true);
  });

  test("an operator record names the 2025 spin-off (distributedName): lineage and action name SOLS; the record is hashed as given; no other evidence hash moves; verify passes", async () => {
    const db = srv.ledger.db;
    const before = new Map((await actions()).map((a) => [a.id, a.evidenceSha256]));
    const issuer = await db.get(...q<{ payload: string }>`SELECT payload FROM issuer_revisions WHERE event_id = ${"13e01fd9-ce80-42bf-b1f1-c1ac4f145536"} ORDER BY version DESC LIMIT 1`);
    const record = { ...JSON.parse(issuer!.payload), version: 2, status: "Corrected", mint: HONX, distributedName: "SOLS" };
    const [parsed] = parseOperatorRecords(JSON.stringify([record]), "records.json");
    expect(parsed).toEqual(record);
    await storeObservations(db, { operatorRecords: [parsed!] });
    await bookEverythingDirty(db);

    const stored = await db.get(
      ...q<{ payload: string; payload_sha256: string; source: string }>`SELECT payload, payload_sha256, source FROM issuer_revisions WHERE event_id = ${record.eventId} AND version = 2`,
    );
    expect(stored!.source).toBe("operator");
    expect(stored!.payload_sha256).toBe(sha256Hex(canonicalJson(record)));
    // Without the field, the canonical JSON (and so the hash) is the record's as it always was.
    const { distributedName: _, ...without } = record;
    expect(canonicalJson(parseOperatorRecords(JSON.stringify([{ ...without, distributedName: null }]), "r.json")[0])).toBe(canonicalJson(without));

    const l = await lineage(HONX);
    expect(l.links[0]!.distributed).toEqual({
      name: "SOLS",
      namedBy: "operator",
      holding: "SOLS",
      description: "SOLS, spun off by HON, sold by the issuer and reinvested in HONx (named by an operator record)",
    });
    expect(l.links[1]!.distributed!.description).toBe(UNNAMED);
    expect(l.basisNowSits.map((b) => b.holding)).toEqual(["HON", "SOLS", "a holding distributed by HON (not named by the issuer)"]);

    const after = await actions();
    const named = after.filter((a) => a.type === "spin_off" && a.effectiveAt === "2025-10-30T23:55:00.000Z");
    expect(named.length).toBeGreaterThan(0);
    for (const a of named) {
      expect(a.matched).toMatchObject({ eventId: record.eventId, version: 2 });
      expect(a.reason).toContain("distributed as SOLS");
      expect(a.lineageLink!.distributed!.name).toBe("SOLS");
    }
    // Only the actions that matched the new revision have new evidence; every other hash stands.
    const moved = after
      .filter((a) => before.get(a.id) !== a.evidenceSha256)
      .map((a) => a.id)
      .sort();
    expect(moved).toEqual(named.map((a) => a.id).sort());
    expect([...before.keys()].sort()).toEqual(after.map((a) => a.id).sort());

    const report = await verifyLedger(db);
    expect(report.checks.filter((c) => !c.ok)).toEqual([]);
  });
});
