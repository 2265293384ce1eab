import { useCallback, useRef, useState } from 'react';

/**
 * Runs one async action at a time: a second submit while the first call is in flight is
 * ignored. `busy` drives the button's disabled state.
 */
export function useGuardedSubmit(): [busy: boolean, run: (action: () => Promise<void>) => Promise<void>] {
  const inFlight = useRef(false);
  const [busy, setBusy] = useState(false);
  const run = useCallback(async (action: () => Promise<void>) => {
    if (inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    try {
      await action();
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  }, []);
  return [busy, run];
}
