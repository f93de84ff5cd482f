// One JSON object per line on stderr. Callers pass fields, never headers or keys.
const levels = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type LogLevel = keyof typeof levels;

export function createLogger(level: LogLevel = "info", write: (line: string) => void = (l) => process.stderr.write(l + "\n")) {
  const min = levels[level];
  const log = (lvl: LogLevel, msg: string, fields: Record<string, unknown> = {}) => {
    if (levels[lvl] < min) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }));
  };
  return {
    debug: (m: string, f?: Record<string, unknown>) => log("debug", m, f),
    info: (m: string, f?: Record<string, unknown>) => log("info", m, f),
    warn: (m: string, f?: Record<string, unknown>) => log("warn", m, f),
    error: (m: string, f?: Record<string, unknown>) => log("error", m, f),
  };
}
export type Logger = ReturnType<typeof createLogger>;
