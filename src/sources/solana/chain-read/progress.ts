// A sync's progress as the stages report it: a phase's counts as they grow. A phase is reported
// (at 0 of 0) when it first starts; the stages that share it (the wallet's history, then its
// accounts' walks, both count `account_history`) get the same counter.
import type { PhaseCounter, SyncPhase, SyncProgress } from "./types";

export interface Progress {
  /** A report as it is (a phase counted in one step). */
  report(progress: SyncProgress): void;
  /** The phase's counter, started (and reported) on first use. */
  phase(phase: SyncPhase): PhaseCounter;
}

export function createProgress(report: (progress: SyncProgress) => void = () => {}): Progress {
  const counters = new Map<SyncPhase, PhaseCounter>();
  return {
    report,
    phase(phase) {
      let counter = counters.get(phase);
      if (!counter) counters.set(phase, (counter = startPhase(phase, report)));
      return counter;
    },
  };
}

function startPhase(phase: SyncPhase, report: (progress: SyncProgress) => void): PhaseCounter {
  let done = 0;
  let total = 0;
  report({ phase, done, total });
  return {
    add(n) {
      total += n;
      report({ phase, done, total });
    },
    done(n) {
      done += n;
      report({ phase, done, total });
    },
  };
}
