/** Password hashing (argon2id in production). Verification of a wrong password takes as long as a right one. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 256;

/** Length is what matters (NIST SP 800-63B); no composition rules. */
export function passwordProblem(password: string): string | undefined {
  if (password.length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters.`;
  if (password.length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters.`;
  return undefined;
}

/**
 * A plausible email address (no spaces, one `@`, a dot in the domain); shared by every email check in core. No control
 * or format character either (decision 0106): a zero-width space or a bidirectional override in an address is one
 * nobody can see, and made `boss\u200b@corp.test` a second VIP, blocked sender or account looking just like
 * `boss@corp.test`.
 */
export const EMAIL_PATTERN =
  // The domain's dot is asked for by a lookahead after its first character: `D+\.D+$` (D taking dots too) tried each
  // dot with the rest of the domain, time quadratic in a domain of dots (decision 0158).
  /^[^\s@<>()[\]\\,;:"\p{Cc}\p{Cf}]+@[^\s@<>()[\]\\,;:"\p{Cc}\p{Cf}](?=[^\s@<>()[\]\\,;:"\p{Cc}\p{Cf}]*\.[^\s@<>()[\]\\,;:"\p{Cc}\p{Cf}])[^\s@<>()[\]\\,;:"\p{Cc}\p{Cf}]*$/u;

export function normaliseEmail(raw: string): string | undefined {
  const email = raw.trim().toLowerCase();
  return email.length <= 254 && EMAIL_PATTERN.test(email) ? email : undefined;
}
