// The wallets a tenant follows: register one (and queue its sync), list them, a wallet's sync
// status, and stop following one.
import * as S from "../../../schemas/index.ts";
import { listWallets, walletStatus } from "../../ledger/queries/wallets.ts";
import { QuotaExceeded } from "../../sync/queue.ts";
import { ApiFailure } from "../errors.ts";
import { route, withStatus } from "../route.ts";
import { checkOwner, registeredOwner, walletErrors } from "./guard.ts";

export const walletRoutes = [
  route({
    method: "POST",
    path: "/v1/wallets/sync",
    scope: "wallets:sync",
    body: S.SyncRequestBody,
    response: { 202: S.SyncRequestResponse, 400: S.errors[400], 409: S.errors[409], 413: S.errors[413] },
    tag: "wallets",
    summary: "Register a wallet and queue a sync",
    tool: { name: "request_sync", openWorld: true, summarize: (b) => `${b.owner}: ${b.registration.replace("_", " ")}; sync ${b.status}, job ${b.job.replace("_", " ")}.` },
    description:
      "Answers 202. A second request while a sync is queued or running answers job `already_pending`. The offline demo answers 409 `demo_offline` for a wallet it has no recording of. The quota is the server's MAX_WALLETS_PER_TENANT, for every tenant.",
    handler: async ({ principal, body }, app) => {
      checkOwner(body.owner);
      if (app.demoOwners && !app.demoOwners.has(body.owner)) {
        throw new ApiFailure(
          "demo_offline",
          "This is the offline demo: it holds recorded data for its demo wallets only and cannot sync another wallet. Serve live data without --demo, on another data dir.",
        );
      }
      try {
        const r = await app.registerWallet(principal.tenantId, app.config.maxWallets, body.owner);
        return withStatus(202, { owner: body.owner, ...r });
      } catch (e) {
        if (e instanceof QuotaExceeded) throw new ApiFailure("wallet_quota_exceeded", e.message);
        throw e;
      }
    },
  }),
  route({
    method: "GET",
    path: "/v1/wallets",
    scope: "ledger:read",
    response: { 200: S.WalletsResponse },
    tag: "wallets",
    summary: "Wallets this tenant registered",
    tool: {
      name: "list_wallets",
      summarize: (b) =>
        `Tenant ${b.tenant} follows ${b.wallets.length} of at most ${b.maxWallets} wallets${b.wallets.length ? `: ${b.wallets.map((w) => `${w.owner} (sync ${w.status})`).join(", ")}` : ""}.`,
    },
    handler: async ({ principal }, app) => ({ tenant: principal.tenant, maxWallets: app.config.maxWallets, wallets: await listWallets(app.ledger.db, principal.tenantId) }),
  }),
  route({
    method: "GET",
    path: "/v1/wallets/:owner/status",
    scope: "ledger:read",
    params: S.OwnerParams,
    response: { 200: S.SyncStatusResponse, ...walletErrors },
    tag: "wallets",
    summary: "Sync status of a wallet",
    tool: { name: "get_sync_status", summarize: (b) => `${b.owner}: sync ${b.status}${b.gaps.length ? ` with ${b.gaps.length} gap(s)` : ""}${b.finishedAt ? `, finished ${b.finishedAt}` : ""}.` },
    handler: async ({ principal, params }, app) => {
      await registeredOwner(app, principal, params.owner);
      const s = await walletStatus(app.ledger.db, principal.tenantId, params.owner);
      if (!s) throw new ApiFailure("wallet_not_registered", "This wallet is not registered for your tenant.");
      return s;
    },
  }),
  route({
    method: "DELETE",
    path: "/v1/wallets/:owner",
    scope: "wallets:sync",
    params: S.OwnerParams,
    response: { 204: S.NoContent, ...walletErrors },
    tag: "wallets",
    summary: "Stop following a wallet",
    description:
      "Answers 204. The tenant stops following the wallet: its reads answer 404 wallet_not_registered for this tenant at once, its place in the quota is free, " +
      "its queued sync is dropped and a run in progress stops. Nothing is erased from the ledger: registering it again (POST /v1/wallets/sync) resumes from where " +
      "its syncs stopped and serves the same books once that sync finished. Another tenant that follows the same wallet is not affected; a wallet no tenant follows is no longer synced. " +
      "404 wallet_not_registered when this tenant did not follow it.",
    handler: async ({ principal, params }, app) => {
      checkOwner(params.owner);
      if (!(await app.removeWallet(principal.tenantId, params.owner))) throw new ApiFailure("wallet_not_registered", "This wallet is not registered for your tenant.");
      return withStatus(204);
    },
  }),
];
