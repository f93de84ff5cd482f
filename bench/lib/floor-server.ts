// The minimum work of GET /v1/portfolio (min-portfolio.ts) under one more of the layers every keyed
// route of ours has, as a child process of bench/http-alternate.ts --floor:
//   bun bench/lib/floor-server.ts <ledger.db> <port> <variant>
// Variants, each adding to the minimum:
//   header        reads the request's `authorization` header (a keyed route reads its key there);
//   async         answers through an async function that awaits once (our reads are promises);
//   elysia        is an Elysia route with the route's query schema, answering at once;
//   elysia-keyed  is that route behind an async onRequest hook that reads the header, its handler async.
// Two more, not in the default set, each a question about `elysia-keyed` (docs/performance.md#the-ninth-round-where-the-servers-time-goes):
//   elysia-keyed-sync   the same with the hook and the handler synchronous: what answering through
//                       promises costs once Elysia is in the way (Elysia awaits only what it sees is async);
//   elysia-keyed-heavy  the same with about 100 MB of live objects on the heap, as a server with our
//                       modules loaded carries: whether the heap's size costs each request.
// None checks the key, counts the rate limit, sets our headers or keeps metrics: what is left
// between `elysia-keyed` and our binary is our own code. Prints "ready" once it listens.
import { Database } from "bun:sqlite";
import { Elysia, t } from "elysia";
import { minimumPortfolio } from "./min-portfolio.ts";

const [dbPath, port, variant] = process.argv.slice(2);
const db = new Database(dbPath!, { readonly: true, strict: true });
db.exec("PRAGMA busy_timeout = 5000");
const dataset = (db.query("SELECT kind, description FROM dataset_label WHERE id = 1").get() ?? { kind: "mainnet", description: null }) as unknown;
const work = minimumPortfolio(db);
const answer = (owner: string) => (work.registered(owner) ? work.answer(owner, dataset) : new Response("not registered", { status: 404 }));
const ownerOf = (req: Request) => new URL(req.url).searchParams.get("owner") ?? "";
const listen = { port: Number(port), hostname: "127.0.0.1" };

if (variant === "header") {
  Bun.serve({ ...listen, fetch: (req) => (req.headers.get("authorization") ? answer(ownerOf(req)) : new Response("no key", { status: 401 })) });
} else if (variant === "async") {
  Bun.serve({
    ...listen,
    async fetch(req) {
      await null;
      return answer(ownerOf(req));
    },
  });
} else if (variant === "elysia-keyed-sync") {
  // Elysia reads a hook's source to decide whether to await it: neither of these may mention async
  // or await, or return a call (the count keeps Bun's transpiler from folding the call into the return).
  const served = { count: 0 };
  const app = new Elysia({ normalize: false });
  app.onRequest(({ request }) => {
    if (!request.headers.get("authorization")) throw new Error("no key");
  });
  app.get(
    "/v1/portfolio",
    ({ query }) => {
      const response = answer(query.owner);
      served.count++;
      return response;
    },
    { query: t.Object({ owner: t.String() }) },
  );
  app.listen(listen);
} else if (variant === "elysia" || variant === "elysia-keyed" || variant === "elysia-keyed-heavy") {
  const ballast = variant === "elysia-keyed-heavy" ? Array.from({ length: 1_000_000 }, (_, i) => ({ i, s: `x${i}`, a: [i] })) : [];
  const app = new Elysia({ normalize: false });
  if (variant !== "elysia")
    app.onRequest(async ({ request }) => {
      await null;
      if (!request.headers.get("authorization")) throw new Error("no key");
    });
  const query = t.Object({ owner: t.String() });
  if (variant === "elysia") app.get("/v1/portfolio", ({ query }) => answer(query.owner), { query });
  else
    app.get(
      "/v1/portfolio",
      async ({ query }) => {
        await null;
        return answer(query.owner);
      },
      { query },
    );
  app.listen(listen);
  // Kept reachable for as long as the server runs.
  app.onStop(() => void ballast.length);
} else {
  throw new Error(`unknown variant ${variant}: header, async, elysia, elysia-keyed, elysia-keyed-sync or elysia-keyed-heavy`);
}
console.log("ready");
