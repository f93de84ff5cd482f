// The in-memory delivery store, held to the contract every store follows.
import { MemoryDeliveryStore } from "../../src/events/memory-store.ts";
import { deliveryStoreContract } from "./store-contract.ts";

deliveryStoreContract("in memory", async () => {
  const store = new MemoryDeliveryStore();
  return {
    store,
    addSubscription: async (s) => store.addSubscription(s),
    updateSubscription: async (id, patch) => store.updateSubscription(id, patch),
    enqueue: async (e, at) => store.enqueue(e, at),
    state: async (id) => {
      const r = store.delivery(id)!;
      return { status: r.status, attempts: r.attempts, lastStatus: r.lastStatus, lastAnswer: r.lastAnswer, nextAttemptAt: r.nextAttemptAt };
    },
    close: async () => {},
  };
});
