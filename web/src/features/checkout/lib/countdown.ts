import { useEffect, useState } from 'react';

/** m:ss of the seconds left; 0:00 once past. */
export function formatCountdown(secondsLeft: number): string {
  const seconds = Math.max(0, Math.floor(secondsLeft));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** Seconds left until `until` (an ISO date), ticking every second; 0 at and after it. */
export function useSecondsLeft(until: string | undefined): number {
  const target = until ? Date.parse(until) : NaN;
  const read = () => (Number.isNaN(target) ? 0 : Math.max(0, Math.ceil((target - Date.now()) / 1000)));
  const [left, setLeft] = useState(read);
  useEffect(() => {
    setLeft(read());
    if (Number.isNaN(target)) return;
    const timer = setInterval(() => {
      const next = read();
      setLeft(next);
      if (next === 0) clearInterval(timer);
    }, 1000);
    return () => clearInterval(timer);
  }, [target]);
  return left;
}
