// Lots, cost basis and realized gains (docs/lots.md). Pure: no I/O, no clock, no database.
export { deriveLots, REASONS } from "./derive";
export { actionEventOf } from "./from-action";
export { compareEvents, orderEvents } from "./order";
export { type GainTotal, gainTotals } from "./summary";
export { firstAnniversary, termOf } from "./term";
export * from "./types";
