import { Type } from "@sinclair/typebox";

/**
 * A JSON-RPC 2.0 message of the Model Context Protocol, as POST /mcp takes and answers it
 * (docs/mcp.md#over-http). Its methods and results are the protocol's, not described here.
 */
export const McpMessage = Type.Object(
  {
    jsonrpc: Type.Literal("2.0", { description: "Always 2.0" }),
    id: Type.Optional(Type.Union([Type.String(), Type.Integer()], { description: "The request's id; absent on a notification" })),
    method: Type.Optional(Type.String({ description: "On a request or notification: initialize, tools/list, tools/call, resources/list, resources/read, ping…" })),
    params: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "The method's parameters" })),
    result: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "On an answer: the method's result" })),
    error: Type.Optional(
      Type.Object(
        {
          code: Type.Integer({ description: "The JSON-RPC error code (-32602: unknown tool or bad parameters)" }),
          message: Type.String({ description: "What went wrong" }),
          data: Type.Optional(Type.Unknown({ description: "More about it (an MCP refusal of a resource carries the API's {error, code})" })),
        },
        { description: "On an answer: a protocol error. A tool's refusal is not one: it is a result with isError and the API's error code" },
      ),
    ),
  },
  { title: "McpMessage", description: "A JSON-RPC 2.0 message of the Model Context Protocol (Streamable HTTP transport, JSON answers)" },
);
