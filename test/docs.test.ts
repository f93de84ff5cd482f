// The repository stands alone: code cites the rules it relies on in docs/, never a spec file this
// repository does not hold, and every pointer into docs/ names a file and a heading that exist.
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "..");
const CODE_DIRS = ["src", "cli", "client", "schemas", "test", "bench", "scripts", "web"];
const TEXT = /\.(ts|tsx|js|mjs|cjs|md|sh|sql)$/;
const SKIP = new Set(["node_modules", "dist"]);

// Built from parts so that this file does not match itself.
const SECTION = "\u00a7";
const SPEC_CITE = new RegExp(`\\b(decisions|domain\\.md|domain|interface|real-cases)[^a-z\\n]*${SECTION}`, "i");
const SPEC_PATH = /\bspec\/(decisions|domain|interface|real-cases)\.md/i;
const DOC_REF = /\bdocs\/([A-Za-z0-9_./-]+\.md)(?:#([A-Za-z0-9_-]+))?/g;

function* files(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (TEXT.test(name)) yield path;
  }
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

const anchorCache = new Map<string, Set<string> | null>();
function docAnchors(docPath: string): Set<string> | null {
  if (!anchorCache.has(docPath)) {
    const full = join(ROOT, "docs", docPath);
    anchorCache.set(docPath, existsSync(full) ? anchorsOf(readFileSync(full, "utf8")) : null);
  }
  return anchorCache.get(docPath)!;
}

/** Problems in one file's text: spec citations and docs/ pointers that lead nowhere. */
function problemsIn(name: string, text: string, anchors: (doc: string) => Set<string> | null = docAnchors): string[] {
  const out: string[] = [];
  text.split("\n").forEach((line, i) => {
    const at = `${name}:${i + 1}`;
    if (SPEC_CITE.test(line) || SPEC_PATH.test(line)) out.push(`${at} cites a spec file this repository does not hold: ${line.trim()}`);
    for (const [, doc, anchor] of line.matchAll(DOC_REF)) {
      const known = anchors(doc!);
      if (known === null) out.push(`${at} points to docs/${doc}, which does not exist`);
      else if (anchor !== undefined && !known.has(anchor)) out.push(`${at} points to docs/${doc}#${anchor}, a heading that does not exist`);
    }
  });
  return out;
}

describe("the checker", () => {
  const fake = (doc: string) => (doc === "a.md" ? anchorsOf("# Title\n## The rule: why\n## The rule: why\n") : null);

  test("anchors follow GitHub's rules, repeated headings numbered", () => {
    expect([...anchorsOf("# A b\n## Check order\n## Net cash, and the fallback\n```\n# not a heading\n```\n## Check order\n")]).toEqual([
      "a-b",
      "check-order",
      "net-cash-and-the-fallback",
      "check-order-1",
    ]);
  });

  test("finds a spec citation, a missing file and a missing heading; accepts a good pointer", () => {
    const cite = ["// see decisions ", SECTION, "4"].join("");
    const d = ["docs", "/"].join(""); // split so the repository test does not read these as pointers
    const text = [cite, `// ${d}missing.md#x`, `// ${d}a.md#nowhere`, `// ${d}a.md#the-rule-why-1 and ${d}a.md`].join("\n");
    const problems = problemsIn("f.ts", text, fake);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toContain("f.ts:1 cites a spec file");
    expect(problems[1]).toContain(`${d}missing.md, which does not exist`);
    expect(problems[2]).toContain(`${d}a.md#nowhere, a heading`);
  });
});

describe("the repository", () => {
  test("code cites docs/, never a spec file, and every docs/ pointer resolves", () => {
    const problems: string[] = [];
    for (const dir of CODE_DIRS) {
      for (const path of files(join(ROOT, dir))) problems.push(...problemsIn(relative(ROOT, path), readFileSync(path, "utf8")));
    }
    expect(problems).toEqual([]);
  });

  test("links between the docs, and from the README into them, resolve", () => {
    const problems: string[] = [];
    const check = (name: string, text: string, base: string) => {
      for (const [, target, anchor] of text.matchAll(/\]\(([A-Za-z0-9_./-]*\.md)?(?:#([A-Za-z0-9_-]+))?\)/g)) {
        const path = target === undefined ? name : join(base, target);
        if (!path.startsWith("docs/")) continue; // only pages inside docs/
        const doc = path.slice("docs/".length);
        const known = docAnchors(doc);
        if (known === null) problems.push(`${name} links to docs/${doc}, which does not exist`);
        else if (anchor !== undefined && !known.has(anchor)) problems.push(`${name} links to docs/${doc}#${anchor}, a heading that does not exist`);
      }
    };
    for (const name of readdirSync(join(ROOT, "docs"))) {
      if (name.endsWith(".md")) check(`docs/${name}`, readFileSync(join(ROOT, "docs", name), "utf8"), "docs");
    }
    check("README.md", readFileSync(join(ROOT, "README.md"), "utf8"), ".");
    expect(problems).toEqual([]);
  });
});
