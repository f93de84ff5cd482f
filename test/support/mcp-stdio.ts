// `ca-ledger mcp --url <server>` in miniature, for test/mcp/stdio.test.ts: the MCP server over
// stdio with test/support/mcp-tools.ts and the docs resources, the key from CA_LEDGER_API_KEY.
// The key's scopes are not known here: every tool is listed and the server refuses what the key
// may not do.
import { allScopes } from "../../src/domain/scopes.ts";
import { docsResources } from "../../src/mcp/docs.ts";
import { createMcpServer } from "../../src/mcp/server.ts";
import { serveMcpStdio } from "../../src/mcp/stdio.ts";
import { sampleTools, type KeyedPrincipal } from "./mcp-tools.ts";

const at = process.argv.indexOf("--url");
const url = at > 0 ? process.argv[at + 1] : undefined;
const apiKey = process.env.CA_LEDGER_API_KEY;
if (!url || !apiKey) {
  process.stderr.write("usage: CA_LEDGER_API_KEY=… mcp-stdio --url <server>\n");
  process.exit(2);
}
const service = createMcpServer<KeyedPrincipal>({ tools: sampleTools(url), resources: docsResources(), version: "test" });
await serveMcpStdio(service, { tenant: "(the server's)", scopes: allScopes, apiKey });
process.stderr.write("mcp-stdio: client closed stdin\n");
