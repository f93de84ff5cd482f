// `--help` for every command, within 80 columns: each flag on its own line with its value hint,
// its description (which names its env variable and default) wrapped and indented below it.
import type { ArgDef, ArgsDef, CommandDef, CommandMeta } from "citty";
import { isClosedPipe } from "./common.ts";

const width = 80;
const indent = "      ";

type AnyCommand = CommandDef<any>;
const resolve = async <T>(v: T | Promise<T> | (() => T | Promise<T>)): Promise<T> => (typeof v === "function" ? (v as () => T | Promise<T>)() : v);

/** Greedy word wrap; a word longer than a line (a long path) is cut rather than overflowing. */
export function wrap(text: string, prefix: string): string[] {
  const room = width - prefix.length;
  const lines: string[] = [];
  let line = "";
  for (let word of text.split(/\s+/).filter(Boolean)) {
    while (word.length > room) {
      if (line) lines.push(line), (line = "");
      lines.push(word.slice(0, room));
      word = word.slice(room);
    }
    if (line && line.length + 1 + word.length > room) lines.push(line), (line = "");
    line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l) => prefix + l);
}

function flagLine(name: string, def: ArgDef): string {
  const hint = def.type === "string" || def.type === "enum" ? ` <${(def as { valueHint?: string }).valueHint ?? "value"}>` : "";
  return `  --${name}${hint}${def.required ? "  (required)" : ""}`;
}

export async function renderUsage(cmd: AnyCommand, parent?: AnyCommand): Promise<string> {
  const meta = (await resolve(cmd.meta ?? {})) as CommandMeta;
  const parentMeta = (await resolve(parent?.meta ?? {})) as CommandMeta;
  const name = ["ca-ledger", ...[parentMeta.name, meta.name].filter((n) => n && n !== "ca-ledger")].join(" ");
  const args = Object.entries((await resolve(cmd.args ?? {})) as ArgsDef);
  const subCommands = Object.entries((await resolve(cmd.subCommands ?? {})) as Record<string, AnyCommand>);
  const positionals = args.filter(([, d]) => d.type === "positional");
  const flags = args.filter(([, d]) => d.type !== "positional");
  const out: string[] = [...wrap(`${name}: ${meta.description ?? ""}`, ""), ""];
  const usage = [
    name,
    ...(subCommands.length ? ["<command>"] : []),
    ...positionals.map(([n, d]) => (d.required === false ? `[${n.toUpperCase()}]` : `<${n.toUpperCase()}>`)),
    ...(flags.length ? ["[flags]"] : []),
  ];
  out.push(...wrap(`Usage: ${usage.join(" ")}`, ""), "");
  for (const [n, d] of positionals) out.push(`  ${n.toUpperCase()}`, ...wrap(d.description ?? "", indent));
  if (positionals.length) out.push("");
  if (flags.length) out.push("Flags:");
  for (const [n, d] of flags) out.push(flagLine(n, d), ...wrap(d.description ?? "", indent));
  if (subCommands.length) {
    out.push("Commands:");
    for (const [n, sub] of subCommands) out.push(`  ${n}`, ...wrap(((await resolve(sub.meta ?? {})) as CommandMeta).description ?? "", indent));
    out.push("", ...wrap(`Run '${name} <command> --help' for a command's flags.`, ""));
  }
  return out.join("\n").trimEnd() + "\n";
}

/** citty's `showUsage` hook (citty would print a write error's stack: a closed pipe ends quietly). */
export async function showUsage(cmd: AnyCommand, parent?: AnyCommand): Promise<void> {
  const text = await renderUsage(cmd, parent);
  try {
    process.stdout.write(text);
  } catch (e) {
    if (isClosedPipe(e)) process.exit(0);
    throw e;
  }
}
