// Shared by the dashboard tests: every path the page loads (its links, and the modules its
// scripts import later, such as the chart's chunk).
export async function assetPaths(base: string): Promise<string[]> {
  const html = await (await fetch(base + "/")).text();
  const paths = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]!);
  for (const script of paths.filter((p) => p.endsWith(".js"))) {
    const js = await (await fetch(base + script)).text();
    for (const m of js.matchAll(/(?:from|import\()\s*"\.\/([^"]+\.js)"/g)) if (!paths.includes(`/ui/${m[1]}`)) paths.push(`/ui/${m[1]}`);
  }
  return paths;
}
