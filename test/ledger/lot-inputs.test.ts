// lotInputs on the demo ledger, synced through the real worker, store and booking: the lots the
// lot engine derives from it hold exactly the booking engine's positions, under every method and
// both treatments, and every booked action that took force reaches the lot engine.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { demoOwners, demoTenant, loadDemo } from "../../src/demo/load.ts";
import { deriveLots, LOT_METHODS, TAX_TREATMENTS } from "../../src/domain/lots/index.ts";
import { formatDecimal } from "../../src/domain/numbers.ts";
import { openLedger } from "../../src/ledger/db.ts";
import { lotInputs } from "../../src/ledger/read/lot-inputs.ts";
import { balanceChangeSql } from "../../src/ledger/tables/balance-changes.ts";
import { tenantSql } from "../../src/ledger/tables/tenants.ts";
import { tenantWalletSql } from "../../src/ledger/tables/tenant-wallets.ts";
import { ledgerTarget } from "../support/engine.ts";
import { q } from "../support/sql.ts";

const dir = mkdtempSync(join(tmpdir(), "cal-lot-inputs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("lotInputs on the demo", async () => {
  const now = new Date("2026-09-20T00:00:00Z");
  const ledger = await openLedger(ledgerTarget(dir));
  const loaded = loadDemo(ledger, now);
  const tenantId = async () => (await ledger.db.get(...q<{ id: number }>`SELECT id FROM tenants WHERE slug = ${demoTenant}`))!.id;
  afterAll(() => ledger.close());

  test("the lots hold each position's quantity, under every method and both treatments", async () => {
    await loaded;
    const input = await lotInputs(ledger.db, await tenantId(), { now });
    expect(input.owners).toEqual([...demoOwners()].sort());
    // Each position as booking derived it: the portfolio holds it, its exact quantity under `exact`.
    const portfolios = await ledger.db.all(...q<{ owner: string; body: string }>`SELECT owner, body FROM portfolios ORDER BY owner`);
    const positions = portfolios.flatMap((r) =>
      (JSON.parse(r.body) as { positions: { mint: string; exact: { quantity: string } }[] }).positions.map((p) => ({ owner: r.owner, mint: p.mint, quantity: p.exact.quantity })),
    );
    expect(positions.length).toBeGreaterThan(0);
    for (const treatment of TAX_TREATMENTS) {
      for (const method of LOT_METHODS) {
        const report = deriveLots(input, { method, treatment });
        const held = new Map(report.instruments.map((i) => [`${i.owner} ${i.mint}`, formatDecimal(i.units)]));
        for (const p of positions)
          expect({ method, treatment, key: `${p.owner} ${p.mint}`, units: held.get(`${p.owner} ${p.mint}`) }).toEqual({
            method,
            treatment,
            key: `${p.owner} ${p.mint}`,
            units: p.quantity,
          });
        expect(report.problems.filter((x) => x.code === "action_units_mismatch" || x.code === "no_open_lot")).toEqual([]);
      }
    }
  });

  test("every action that took force is an event, with the instruments named", async () => {
    await loaded;
    const input = await lotInputs(ledger.db, await tenantId(), { now });
    const inForce = await ledger.db.get(
      ...q<{ n: number }>`SELECT count(*) AS n FROM actions a JOIN action_events e ON e.id = a.event_id WHERE e.state IN ('activated', 'corrected') AND e.type <> 'seizure'`,
    );
    expect(input.actions.length).toBe(inForce!.n);
    for (const m of new Set(input.movements.map((x) => x.mint))) expect(input.names.get(m)?.symbol).toMatch(/x$/);
  });

  test("a tenant sees only its own wallets, and only once synced; `owners` narrows them", async () => {
    await loaded;
    expect((await lotInputs(ledger.db, 999, { now })).movements).toEqual([]);
    const [first] = [...demoOwners()].sort();
    const one = await lotInputs(ledger.db, await tenantId(), { owners: [first!, "someone-else"], now });
    expect(one.owners).toEqual([first!]);
    expect(new Set(one.movements.map((m) => m.owner))).toEqual(new Set([first!]));
  });

  test("linkedTo derives a wallet with the wallets it shares a transaction with: here each other (bob sent alice HONx), and its lots are the whole derivation's", async () => {
    await loaded;
    const whole = await lotInputs(ledger.db, await tenantId(), { now });
    expect(whole.owners.length).toBeGreaterThan(1);
    for (const owner of whole.owners) {
      const linked = await lotInputs(ledger.db, await tenantId(), { now, linkedTo: [owner] });
      expect(linked.owners).toEqual(whole.owners);
      for (const method of LOT_METHODS) {
        const mine = (r: ReturnType<typeof deriveLots>) => ({ lots: r.lots.filter((l) => l.owner === owner), realized: r.realized.filter((x) => x.owner === owner) });
        expect(mine(deriveLots(linked, { method, treatment: "income" }))).toEqual(mine(deriveLots(whole, { method, treatment: "income" })));
      }
    }
  });
});

describe("linkedTo walks out ring by ring", async () => {
  // Five wallets of one tenant: A and B share a transaction, B and C another (a lot moved A → B → C
  // carries A's history to C), D shares one with E, which the tenant follows but has not synced.
  const ledger = await openLedger(ledgerTarget(mkdtempSync(join(tmpdir(), "cal-lot-rings-"))));
  afterAll(() => ledger.close());
  const at = "2026-01-01T00:00:00.000Z";
  const [A, B, C, D, E, F] = ["Aaa", "Bbb", "Ccc", "Ddd", "Eee", "Fff"];
  const change = (signature: string, owner: string, slot: number) =>
    ledger.db.run(balanceChangeSql.insert, {
      signature,
      tokenAccount: `acct-${owner}`,
      owner,
      mint: "MintX",
      slot,
      blockTime: 1_760_000_000 + slot,
      preRaw: "0",
      postRaw: "1",
      ownerSigned: true,
      byPermanentDelegate: false,
    });
  const ready = (async () => {
    await ledger.db.run(tenantSql.ensure, { slug: "rings", maxWallets: 10, at });
    const tenantId = (await ledger.db.get(...q<{ id: number }>`SELECT id FROM tenants WHERE slug = 'rings'`))!.id;
    for (const o of [A, B, C, D, E]) await ledger.db.run(tenantWalletSql.insert, { tenantId, owner: o!, at });
    await ledger.db.run(...q`UPDATE tenant_wallets SET first_synced_at = ${at} WHERE owner <> ${E!}`);
    for (const [sig, owners] of [
      ["ab", [A, B]],
      ["bc", [B, C]],
      ["de", [D, E]],
      ["cf", [C, F]],
    ] as const)
      for (const [i, o] of owners.entries()) await change(sig, o!, i + 1);
    return tenantId;
  })();

  test("A reaches B and C (two rings), not D; F (another tenant's) and E (not synced) stay out", async () => {
    const tenantId = await ready;
    expect((await lotInputs(ledger.db, tenantId, { linkedTo: [A!] })).owners).toEqual([A, B, C]);
    expect((await lotInputs(ledger.db, tenantId, { linkedTo: [C!] })).owners).toEqual([A, B, C]);
    expect((await lotInputs(ledger.db, tenantId, { linkedTo: [D!] })).owners).toEqual([D]);
    expect((await lotInputs(ledger.db, tenantId, { linkedTo: [E!] })).owners).toEqual([]);
    expect((await lotInputs(ledger.db, tenantId, { linkedTo: [A!], owners: [A!, B!] })).owners).toEqual([A, B]);
  });
});
