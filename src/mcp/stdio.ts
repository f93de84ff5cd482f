// `ca-ledger mcp`: the Model Context Protocol over stdin and stdout for a desktop agent, which
// starts the process and talks to it alone (docs/mcp.md#over-stdio). stdout carries only
// protocol messages: anything else the process says goes to stderr.
import type { Readable, Writable } from "node:stream";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { McpPrincipal, McpService } from "./server.ts";

export interface StdioOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Stops serving (e.g. on SIGTERM). */
  signal?: AbortSignal;
}

/**
 * Serves one client until it closes stdin (how desktop clients end a server), the signal fires,
 * or the transport closes; then resolves.
 */
export async function serveMcpStdio<P extends McpPrincipal>(service: McpService<P>, principal: P, options: StdioOptions = {}): Promise<void> {
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  const server = service.serverFor(principal);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(transport);
  const stop = () => void server.close();
  stdin.once("end", stop);
  stdin.once("close", stop);
  options.signal?.addEventListener("abort", stop, { once: true });
  if (options.signal?.aborted) stop();
  try {
    await closed;
  } finally {
    stdin.off("end", stop);
    stdin.off("close", stop);
    options.signal?.removeEventListener("abort", stop);
  }
}
