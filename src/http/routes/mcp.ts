// The Model Context Protocol for agents (docs/mcp.md#over-http): the Streamable HTTP transport,
// stateless, behind the API's own checks. Any valid key may speak it; each tool then needs the
// scope of its route, checked per call (src/mcp/server.ts).
import * as S from "../../../schemas/index.ts";
import { route } from "../route.ts";

export const mcpRoutes = [
  route({
    method: "POST",
    path: "/mcp",
    scope: "key",
    takesRequest: true,
    body: S.McpMessage,
    response: { 200: S.McpMessage, 400: S.errors[400], 413: S.errors[413] },
    tag: "agents",
    summary: "The Model Context Protocol (Streamable HTTP): the reads as tools for agents",
    description:
      "The body is one JSON-RPC 2.0 message of the Model Context Protocol (send accept: application/json, text/event-stream); the answer is JSON, never a stream " +
      "(202 with no body for a notification). A body that is not such a message is 400 invalid_request. " +
      "Stateless: no session id, and every POST is authenticated, rate-limited and counted like any request. A key lists and calls only the tools its scopes allow, " +
      "each one a route of this API with the route's parameters as input and its JSON as result; a tool's refusal carries the API's error code. " +
      "Protocol errors (a malformed message, a missing accept type) are JSON-RPC errors, as the protocol defines them. See docs/mcp.md.",
    handler: ({ principal, request, body }, app) => app.mcp(request!, principal, body),
  }),
];
