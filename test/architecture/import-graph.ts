// The project's import graph, read from the source text: every relative `import`/`export ... from`
// of every .ts file under the folders asked for, type-only imports included (a cycle of types is
// still a cycle a reader has to untangle). For the architecture tests: which modules import
// which, and which import each other round in a circle.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export const repoRoot = join(import.meta.dir, "..", "..");

/** Module → the modules it imports, both as paths relative to the repository (`src/net/retry.ts`). */
export type ImportGraph = Map<string, string[]>;

const IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s+["'](\.[^"']+)["']|^\s*import\s+["'](\.[^"']+)["']/gm;

/** Every .ts module under `folders` (relative to the repository) and what each imports (relative imports only; json and sql left out). */
export function importGraph(folders: string[], root = repoRoot): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of folders.flatMap((folder) => tsFiles(resolve(root, folder)))) {
    const text = readFileSync(file, "utf8");
    const deps = new Set<string>();
    for (const m of text.matchAll(IMPORT)) {
      const target = resolveModule(dirname(file), (m[1] ?? m[2])!);
      if (target) deps.add(relative(root, target));
    }
    graph.set(relative(root, file), [...deps]);
  }
  return graph;
}

const PACKAGE_IMPORT = /^\s*(?:import|export)\s[^;]*?\sfrom\s+["']([^."'][^"']*)["']|^\s*import\s+["']([^."'][^"']*)["']/gm;

/** Module → the packages it imports (`node:crypto`, `elysia`): its imports that are not relative, type-only ones included. */
export function packageImports(folders: string[], root = repoRoot): Map<string, string[]> {
  const imports = new Map<string, string[]>();
  for (const file of folders.flatMap((folder) => tsFiles(resolve(root, folder)))) {
    const specifiers = [...readFileSync(file, "utf8").matchAll(PACKAGE_IMPORT)].map((m) => (m[1] ?? m[2])!);
    imports.set(relative(root, file), [...new Set(specifiers)]);
  }
  return imports;
}

/** The .ts modules under `folder` (relative to the repository), each with its source text. */
export function sources(folder: string, root = repoRoot): { module: string; text: string }[] {
  return tsFiles(resolve(root, folder)).map((file) => ({ module: relative(root, file), text: readFileSync(file, "utf8") }));
}

function tsFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : [];
  });
}

function resolveModule(from: string, specifier: string): string | null {
  const base = resolve(from, specifier);
  for (const candidate of [base, `${base}.ts`, join(base, "index.ts")]) {
    if (candidate.endsWith(".ts") && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** Modules that import each other round: all of them, and one way round through them. */
export interface ImportCycle {
  /** Every module of the knot (a strongly connected component), sorted. */
  modules: string[];
  /** A shortest way from the first module back to itself, e.g. `[a.ts, b.ts, a.ts]`. */
  way: string[];
}

/** The import cycles of the graph: each knot of two or more modules, or a module importing itself. Sorted, so a report reads the same run to run. */
export function importCycles(graph: ImportGraph): ImportCycle[] {
  return stronglyConnected(graph)
    .filter((group) => group.length > 1 || (graph.get(group[0]!) ?? []).includes(group[0]!))
    .map((modules) => ({ modules, way: cycleThrough(graph, new Set(modules)) }))
    .sort((a, b) => a.modules[0]!.localeCompare(b.modules[0]!));
}

/** The cycles with a module under `folder` (relative to the repository, e.g. `src/sources`). */
export function cyclesTouching(graph: ImportGraph, folder: string): ImportCycle[] {
  const prefix = folder.endsWith("/") ? folder : `${folder}/`;
  return importCycles(graph).filter((cycle) => cycle.modules.some((module) => module.startsWith(prefix)));
}

/** A cycle for a person: the way round, and the rest of its knot when there is more. */
export function describeCycle(cycle: ImportCycle): string {
  const others = cycle.modules.filter((m) => !cycle.way.includes(m));
  return `${cycle.way.join(" -> ")}${others.length ? ` (the same knot holds ${others.join(", ")})` : ""}`;
}

/** Tarjan's algorithm, iterative (a deep import chain must not overflow the stack). */
function stronglyConnected(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const groups: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!graph.has(to)) continue; // outside the folders read
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const group: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          group.push(member);
        } while (member !== frame.node);
        groups.push(group.sort());
      }
    }
  }
  return groups;
}

/** A shortest way round from the group's first module back to itself, inside the group. */
function cycleThrough(graph: ImportGraph, group: Set<string>): string[] {
  const start = [...group].sort()[0]!;
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (!group.has(to)) continue;
      if (to === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}
