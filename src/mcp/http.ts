// `POST /mcp`: the Streamable HTTP transport of the Model Context Protocol, stateless
// (docs/mcp.md#over-http). The API's checks run before this (lockout, key, rate limit, metrics;
// GET and DELETE are its 405, the route being declared POST only: src/http/routes/mcp.ts); each
// POST gets a fresh protocol server bound to the principal it resolved and a fresh transport,
// answered as plain JSON and then closed. So nothing of a caller outlives its request, a revoked
// key stops at its next POST, and any of several servers can answer any POST.
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { McpPrincipal, McpService } from "./server.ts";

export interface McpHttpOptions {
  /** The largest body read here (when the caller has not parsed it already); the API's limit. */
  maxBodyBytes: number;
}

/**
 * The handler for `POST /mcp`. `parsedBody` is the JSON body when the framework has read it
 * already (Elysia's parse hook does): the transport then does not read the request's body again.
 */
export function mcpHttpHandler<P extends McpPrincipal>(service: McpService<P>, options: McpHttpOptions) {
  return async (request: Request, principal: P, parsedBody?: unknown): Promise<Response> => {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: options.maxBodyBytes,
    });
    const server = service.serverFor(principal);
    await server.connect(transport);
    try {
      // With JSON responses the promise settles once every answer is in the body.
      return await transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
    } finally {
      await server.close();
    }
  };
}
