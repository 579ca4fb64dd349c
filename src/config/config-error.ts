/** A configuration problem the operator can fix; rendered as one line, exit code 2. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
