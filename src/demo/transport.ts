// The demo's recorded transport: a fetch that answers the Solana JSON-RPC and the xStocks API
// from the embedded recording, in their real wire formats, so the demo runs through the very
// adapters a live sync uses, offline.
import { chainFromRecording, recordedRpcFetch, type ChainRecording } from "../sources/solana/recorded.ts";
import type { FetchLike } from "../net/http-transport.ts";

export const demoRpcUrl = "http://rpc.demo.invalid/";
export const demoIssuerUrl = "http://issuer.demo.invalid/api/v2";

export interface DemoRecording {
  owners: string[];
  chain: ChainRecording;
  issuer: { assets: unknown[]; history: unknown[]; upcoming: unknown[] };
}

export function demoFetch(recording: DemoRecording): FetchLike {
  const rpc = recordedRpcFetch(chainFromRecording(recording.chain));
  return async (input, init) => {
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    if (url.origin === new URL(demoRpcUrl).origin) return rpc(input, init);
    const path = url.pathname.replace(new URL(demoIssuerUrl).pathname, "");
    // One page with no paging info: the issuer client reads that as the whole list.
    if (path === "/public/assets") return Response.json({ nodes: recording.issuer.assets });
    if (path === "/public/corporate-actions/history") return Response.json({ nodes: recording.issuer.history });
    if (path === "/public/corporate-actions/upcoming") return Response.json({ nodes: recording.issuer.upcoming });
    if (/^\/public\/assets\/[^/]+\/multiplier\/history$/.test(path)) return Response.json({ nodes: [] });
    return new Response("not found", { status: 404 });
  };
}
