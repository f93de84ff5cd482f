// What a key may do: its scopes (docs/api.md#routes-and-scopes), and the command that makes a key
// with a scope it lacks, which the 403 missing_scope answer and the dashboard both show.
export const allScopes = ["assets:read", "ledger:read", "wallets:sync", "ops:read"] as const;
export type Scope = (typeof allScopes)[number];
export const defaultScopes: Scope[] = ["assets:read", "ledger:read"];

/** `ca-ledger keys create` for a key of this tenant with the default scopes and `scope`. */
export function keyCommandFor(scope: Scope, tenant: string): string {
  const scopes = allScopes.filter((s) => s === scope || defaultScopes.includes(s));
  return `ca-ledger keys create <name> --tenant ${tenant} --scopes ${scopes.join(",")}`;
}

/** The sentence of a 403 missing_scope: the scope, and how to get a key that has it. */
export function missingScopeMessage(scope: Scope, tenant: string): string {
  return `This key lacks the scope ${scope}. An operator makes a key with it: ${keyCommandFor(scope, tenant)}`;
}
