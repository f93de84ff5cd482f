// citty accepts any flag and any number of positionals and drops what it does not know, so a
// typo such as `keys create --scope ...` would silently create a key with default scopes. This
// walks the same command tree citty runs and checks every argument against the `args` of the
// command it belongs to.
import type { ArgDef, ArgsDef, CommandDef } from "citty";

export class UsageError extends Error {
  readonly code = "EARG"; // what citty's own usage errors carry
}

type AnyCommand = CommandDef<any>;

const resolve = async <T>(v: T | Promise<T> | (() => T | Promise<T>)): Promise<T> => (typeof v === "function" ? (v as () => T | Promise<T>)() : v);
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The declared flag a `--name` (kebab or camel, as citty reads both) or `-a` refers to. */
function findFlag(args: ArgsDef, name: string): ArgDef | undefined {
  for (const [key, def] of Object.entries(args)) {
    if (def.type === "positional") continue;
    if (kebab(key) === kebab(name) || [(def as { alias?: string | string[] }).alias ?? []].flat().includes(name)) return def;
  }
  return undefined;
}

/** Throws a UsageError naming the first unknown flag or extra argument of `rawArgs`. */
export async function checkArgs(cmd: AnyCommand, rawArgs: string[], path: string[] = []): Promise<void> {
  const args = (await resolve(cmd.args ?? {})) as ArgsDef;
  const subCommands = await resolve(cmd.subCommands ?? {});
  const where = ["ca-ledger", ...path].join(" ");
  const positionals: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === "--") {
      positionals.push(...rawArgs.slice(i + 1));
      break;
    }
    if (arg.startsWith("-") && arg !== "-") {
      const flag = arg.split("=", 1)[0]!;
      const name = flag.replace(/^--?/, "");
      const negated = flag.startsWith("--no-") ? findFlag(args, name.slice(3)) : undefined;
      const def = negated?.type === "boolean" ? negated : findFlag(args, name);
      if (!def) throw new UsageError(`unknown flag ${flag} for '${where}'`);
      // A value flag takes the next argument unless written --flag=value (as citty reads it).
      if ((def.type === "string" || def.type === "enum") && flag === arg) {
        if (i + 1 >= rawArgs.length) throw new UsageError(`flag ${flag} of '${where}' needs a value`);
        i++;
      }
      continue;
    }
    const sub = Object.keys(subCommands).length && positionals.length === 0 ? (subCommands as Record<string, AnyCommand>)[arg] : undefined;
    // The rest belongs to the subcommand (an unknown one is citty's own usage error).
    if (sub) return checkArgs(await resolve(sub), rawArgs.slice(i + 1), [...path, arg]);
    if (Object.keys(subCommands).length) return;
    positionals.push(arg);
  }
  const declared = Object.values(args).filter((d) => d.type === "positional").length;
  if (positionals.length > declared) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[declared])} for '${where}'`);
}
