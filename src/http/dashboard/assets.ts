// The dashboard's files, embedded in the binary by the generated module bundles/dashboard.ts (built from
// web/ by scripts/gen-dashboard.ts). The page is revalidated on every load; the script, style and
// icon carry their content hash in their names, so a browser may keep them for good.
import { dashboardAssets, type EmbeddedAsset } from "../../../bundles/dashboard.ts";

interface Served {
  asset: EmbeddedAsset;
  etag: string;
  gzip?: Uint8Array<ArrayBuffer>;
}

export function assetServer(assets: EmbeddedAsset[] = dashboardAssets) {
  const byPath = new Map<string, Served>(assets.map((asset) => [asset.path, { asset, etag: `"${asset.sha256.slice(0, 32)}"` }]));

  return {
    has: (path: string): boolean => byPath.has(path),

    serve(request: Request, path: string): Response {
      const served = byPath.get(path)!;
      const { asset, etag } = served;
      const headers: Record<string, string> = {
        "content-type": asset.contentType,
        etag,
        "cache-control": asset.immutable ? "public, max-age=31536000, immutable" : "no-cache",
        vary: "accept-encoding",
      };
      if (request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
      let body: string | Uint8Array<ArrayBuffer> = asset.body;
      if (/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) {
        // Compressed once, on first use: the script is several times smaller over a real network.
        served.gzip ??= Bun.gzipSync(Buffer.from(asset.body)) as Uint8Array<ArrayBuffer>;
        body = served.gzip;
        headers["content-encoding"] = "gzip";
      }
      return new Response(request.method === "HEAD" ? null : body, { status: 200, headers });
    },
  };
}
