// The instruments the ledger knows.
import * as S from "../../../schemas/index.ts";
import { listAssets } from "../../ledger/queries/assets.ts";
import { route } from "../route.ts";

export const assetRoutes = [
  route({
    method: "GET",
    path: "/v1/assets",
    scope: "assets:read",
    response: { 200: S.AssetsResponse },
    tag: "assets",
    summary: "Instruments the ledger knows, with the multiplier in force",
    description: "Every instrument the issuer feed lists; a mint no feed lists only once one of this tenant's wallets holds or held it (after the tenant's own first sync of that wallet).",
    handler: async ({ principal }, app) => ({ assets: await listAssets(app.ledger.db, principal.tenantId) }),
  }),
];
