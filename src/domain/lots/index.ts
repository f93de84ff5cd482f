// Lots, cost basis and realized gains (docs/lots.md). Pure: no I/O, no clock, no database.
export { deriveLots, REASONS } from "./derive";
export { actionEventOf, type ActionFacts } from "./from-action";
export { MOVEMENT_REASONS, type MovementContext, movementsOf, type TokenBalanceChange, TRADE_REASONS, type TransactionChanges } from "./movements";
export { DEFAULT_STABLECOINS, PYUSD_MINT, USDC_MINT, USDT_MINT, WRAPPED_SOL_MINT } from "./stablecoins";
export { type RpcTransaction, transactionChangesOf, TransactionChangesError } from "./transaction-changes";
export { compareEvents, orderEvents } from "./order";
export { type GainTotal, gainTotals } from "./summary";
export { firstAnniversary, termOf } from "./term";
export * from "./types";
