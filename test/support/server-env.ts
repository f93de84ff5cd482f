// The binary's environment when a test or a bench starts it against loopback providers: only
// PATH from this process, its own HOME, no colour, warnings and worse in its log, and the chain
// and issuer it is to read. Each caller adds the intervals and limits its case needs.
export function serverEnv(home: string, providers: { rpcUrl: string; issuerUrl: string }, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: home,
    NO_COLOR: "1",
    LOG_LEVEL: "warn",
    SOLANA_RPC_URL: providers.rpcUrl,
    XSTOCKS_API_URL: providers.issuerUrl,
    ...extra,
  };
}
