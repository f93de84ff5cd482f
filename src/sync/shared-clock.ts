// The sync worker's clock, set from outside its thread: one number in shared memory, read by the
// worker thread at every use (milliseconds since the epoch; 0 means the wall clock). A
// SharedArrayBuffer crosses to a Bun Worker as the same memory, so whoever started the server
// moves the worker's time at once, without a message. Only tests set it: a scheduled change
// takes force when the test says, not when the machine gets round to it.

export interface SharedClock {
  /** Handed to the worker thread (ToWorker "start"). */
  readonly buffer: SharedArrayBuffer;
  /** The worker's time from now on; `null` gives it back the wall clock. */
  set(at: Date | null): void;
}

export function createSharedClock(): SharedClock {
  const buffer = new SharedArrayBuffer(8);
  const view = new Float64Array(buffer);
  return {
    buffer,
    set: (at) => {
      view[0] = at ? at.getTime() : 0;
    },
  };
}

/** The clock a worker reads: the shared one's time while set, else the wall clock. */
export function clockOf(buffer: SharedArrayBuffer | undefined): () => Date {
  if (!buffer) return () => new Date();
  const view = new Float64Array(buffer);
  return () => (view[0] ? new Date(view[0]) : new Date());
}
