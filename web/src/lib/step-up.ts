/**
 * The second factor a sensitive change sends when two-factor sign-in is on: six digits are an
 * authentication code, anything else a recovery code; nothing when no code was given.
 */
export function stepUpProof(code: string | undefined): { code: string } | { recovery_code: string } | Record<string, never> {
  if (!code) return {};
  return /^\d{6}$/.test(code) ? { code } : { recovery_code: code };
}
