import { defineConfig } from "drizzle-kit";

// The same ledger on PostgreSQL (src/ledger/schema-postgres.ts); its own history of migrations.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/ledger/schema-postgres.ts",
  out: "./migrations-postgres",
});
