// The identities of an instrument and the links between them.
import * as S from "../../../schemas/index.ts";
import { mintVisible } from "../../ledger/queries/assets.ts";
import { ApiFailure } from "../errors.ts";
import { route } from "../route.ts";

export const lineageRoutes = [
  route({
    method: "GET",
    path: "/v2/instruments/:mint/lineage",
    scope: "assets:read",
    params: S.MintParams,
    response: { 200: S.LineageResponse, 400: S.errors[400], 404: S.errors[404] },
    tag: "v2",
    summary: "Identities of an instrument, links between them, and where the first identity's basis sits",
    tool: { name: "get_lineage" },
    description: "A mint no issuer feed lists is 404 not_found, like an unknown one, for a tenant none of whose wallets holds or held it.",
    handler: async ({ principal, params }, app) => {
      // A mint no feed lists reads as unknown to a tenant none of whose wallets holds or held it.
      const visible = await mintVisible(app.ledger.db, principal.tenantId, params.mint);
      const l = visible ? await app.queries.instruments.lineage(params.mint) : null;
      if (!l) throw new ApiFailure("not_found", "No instrument with this mint.");
      return { mint: l.mint, symbol: l.symbol, dataset: app.dataset, identities: l.identities, links: l.links, basisNowSits: l.basisNowSits };
    },
  }),
];
