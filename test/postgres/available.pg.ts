// The PostgreSQL tests have a server: CI (.ci/run) starts a throwaway cluster and names it in
// CA_LEDGER_TEST_POSTGRES; without one every test here fails, and this one says why first.
import { SQL } from "bun";
import { expect, test } from "bun:test";
import { requirePostgres } from "../support/engine.ts";

test("a PostgreSQL server of version 15 or later answers at CA_LEDGER_TEST_POSTGRES", async () => {
  const client = new SQL(requirePostgres());
  try {
    const [row] = await client`SELECT current_setting('server_version_num')::int AS version`;
    expect(row.version).toBeGreaterThanOrEqual(150000);
  } finally {
    await client.close();
  }
});
