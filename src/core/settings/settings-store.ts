/** Instance-wide settings use this scope; account settings use the account id. */
export const INSTANCE_SCOPE = 'instance';
/** Where the database keeps the check value of the key its credentials are sealed under (decision 0042). */
export const KEY_CHECK_SETTING = 'encryption_key_check';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };

/** A small key/value of JSON values per scope, for settings that do not deserve their own table. */
export interface SettingsStore {
  get(scope: string, key: string): Promise<JsonValue | undefined>;
  set(scope: string, key: string, value: JsonValue, now: Date): Promise<void>;
  /** Atomic insert-if-absent: of concurrent callers exactly one gets true. */
  setIfAbsent(scope: string, key: string, value: JsonValue, now: Date): Promise<boolean>;
  /**
   * Compare-and-set: writes `next` only if the stored value still equals `expected` as read by `get` (undefined:
   * only if absent). Of concurrent read-modify-writes exactly one lands per round; the others re-read.
   */
  replace(
    scope: string,
    key: string,
    expected: JsonValue | undefined,
    next: JsonValue,
    now: Date,
  ): Promise<boolean>;
  delete(scope: string, key: string): Promise<boolean>;
  /**
   * Removes the settings of accounts that are gone (every scope but the instance's is an account id): a write that
   * raced the account's deletion, or what deletions left before decision 0117. How many rows.
   */
  deleteAccountless(): Promise<number>;
}
