// The USD stablecoins whose change in the same transaction prices an acquisition or a disposal
// (docs/lots.md#stablecoins), valued 1:1. Listed by mint address, never by symbol: anyone can mint
// a token called USDC. The `STABLECOINS` setting replaces this list.
//
// Addresses checked against the issuers' and explorers' listings (Solana mainnet):
//   USDC  EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v  SPL Token, 6 decimals (Circle)
//   USDT  Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB  SPL Token, 6 decimals (Tether)
//   PYUSD 2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo  Token-2022, 6 decimals (Paxos for PayPal)

export const USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
export const USDT_MINT = "Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB";
export const PYUSD_MINT = "2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo";

export const DEFAULT_STABLECOINS: readonly string[] = [USDC_MINT, USDT_MINT, PYUSD_MINT];

/** Wrapped SOL: its token balance is SOL (docs/lots.md#movements-and-prices). */
export const WRAPPED_SOL_MINT = "So11111111111111111111111111111111111111112";
