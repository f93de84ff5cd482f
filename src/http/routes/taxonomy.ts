// The 18 action types, with their treatment and validation computed from this ledger.
import * as S from "../../../schemas/index.ts";
import { route } from "../route.ts";

export const taxonomyRoutes = [
  route({
    method: "GET",
    path: "/v2/taxonomy",
    scope: "assets:read",
    response: { 200: S.TaxonomyResponse },
    tag: "v2",
    summary: "All 18 action types with treatment and validation computed from this ledger",
    tool: { name: "get_taxonomy", resource: "ca-ledger://taxonomy" },
    handler: async (_, app) => ({ types: await app.queries.instruments.taxonomy() }),
  }),
];
