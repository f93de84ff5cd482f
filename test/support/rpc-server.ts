// A loopback Solana JSON-RPC server speaking the real wire format from an in-memory chain, with
// fault injection (429 bursts with retry-after, 5xx, hangs, truncated or non-JSON bodies,
// JSON-RPC errors, a balance misreported by one raw unit). Port 0: the OS picks a free port.
import { getBase64Encoder } from "@solana/kit";
import type { WireSignatureInfo, WireTransaction } from "../../src/sources/solana/wire";
import { answerRpc, type ChainState, type Misreport } from "../../src/sources/solana/recorded";

export type { ChainAccount, ChainState } from "../../src/sources/solana/recorded";

export function emptyChain(slot = 450_000_000): ChainState {
  return { slot, accounts: new Map(), signatures: new Map(), transactions: new Map(), blockTimes: new Map() };
}

/** Record a transaction on the chain, listed (newest first) under each of `addresses`. */
export function addTransaction(state: ChainState, signature: string, tx: WireTransaction, addresses: string[]): void {
  state.transactions.set(signature, tx);
  const info: WireSignatureInfo = { signature, slot: tx.slot, err: tx.meta?.err ?? null, memo: null, blockTime: tx.blockTime, confirmationStatus: "finalized" };
  for (const address of addresses) {
    const list = state.signatures.get(address) ?? [];
    list.unshift(info);
    state.signatures.set(address, list);
  }
}

export type Fault =
  | { kind: "status"; status: number; retryAfter?: string; body?: string }
  | { kind: "hang"; ms?: number }
  | { kind: "stall_body" }
  | { kind: "truncate" }
  | { kind: "not_json" }
  | { kind: "rpc_error"; code: number; message: string }
  | { kind: "null_result" }
  /** Any answer at all (a hostile provider): the test builds the Response. */
  | { kind: "answer"; respond: (params: any[], id: unknown) => Response | Promise<Response> };

export interface FaultRule {
  fault: Fault;
  /** How many matching requests it hits (Infinity for all). */
  times: number;
  method?: string;
  match?: (params: any[]) => boolean;
}

export type { Misreport };

export interface RpcServer {
  url: string;
  stop(): void;
  readonly requests: number;
  /** Every request received, in order (method and params). */
  log: { method: string; params: any[] }[];
  state: ChainState;
  inject(rule: FaultRule): void;
  clearFaults(): void;
  misreport(m: Misreport | null): void;
}

const encoder = getBase64Encoder();

export function startRpcServer(state: ChainState): RpcServer {
  const rules: FaultRule[] = [];
  const log: { method: string; params: any[] }[] = [];
  let misreport: Misreport | null = null;

  const answer = (method: string, params: any[]) => answerRpc(state, method, params, misreport);

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      let body: any;
      try {
        body = await req.json();
      } catch {
        return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
      }
      const { id, method, params = [] } = body;
      log.push({ method, params });
      const rule = rules.find((r) => r.times > 0 && (!r.method || r.method === method) && (!r.match || r.match(params)));
      if (rule) {
        rule.times--;
        const f = rule.fault;
        switch (f.kind) {
          case "status":
            return new Response(f.body ?? (f.status === 429 ? "Too many requests" : "upstream error"), {
              status: f.status,
              headers: f.retryAfter ? { "retry-after": f.retryAfter } : {},
            });
          case "hang":
            await Bun.sleep(f.ms ?? 3_000);
            break;
          case "stall_body": {
            // Headers and half a body, then nothing: a deadline must cover the body too.
            const text = JSON.stringify({ jsonrpc: "2.0", id, ...answer(method, params) });
            const stream = new ReadableStream({
              start(controller) {
                controller.enqueue(new TextEncoder().encode(text.slice(0, Math.floor(text.length / 2))));
              },
            });
            return new Response(stream, { headers: { "content-type": "application/json" } });
          }
          case "truncate": {
            const text = JSON.stringify({ jsonrpc: "2.0", id, ...answer(method, params) });
            return new Response(text.slice(0, Math.floor(text.length * 0.6)), { headers: { "content-type": "application/json" } });
          }
          case "not_json":
            return new Response("<html><body>502 Bad Gateway</body></html>", { headers: { "content-type": "text/html" } });
          case "rpc_error":
            return Response.json({ jsonrpc: "2.0", id, error: { code: f.code, message: f.message } });
          case "null_result":
            return Response.json({ jsonrpc: "2.0", id, result: null });
          case "answer":
            return f.respond(params, id);
        }
      }
      return Response.json({ jsonrpc: "2.0", id, ...answer(method, params) });
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}/`,
    stop: () => server.stop(true),
    get requests() {
      return log.length;
    },
    log,
    state,
    inject: (rule) => rules.push(rule),
    clearFaults: () => {
      rules.length = 0;
    },
    misreport: (m) => {
      misreport = m;
    },
  };
}

/** Decode helper for tests that inspect what the server holds. */
export function base64ToBytes(b64: string): Uint8Array {
  return encoder.encode(b64) as Uint8Array;
}
