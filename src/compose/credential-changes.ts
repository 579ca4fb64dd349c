import type { Stores } from '../adapters/storage/index.ts';

/**
 * The stores, with every write that changes what a bearer credential proves followed by `changed()`: revoking
 * a key, an access token or a grant, what one may do (decision 0141), a plan or payment change, deleting an account. The composition root points
 * it at the verified-credential cache (core/auth/verified-cache.ts), so such a change applies to the next request.
 */
export function reportCredentialChanges(stores: Stores, changed: () => void): Stores {
  return {
    ...stores,
    apiKeys: after(stores.apiKeys, ['revoke', 'revokeAll', 'setAllowed'], changed),
    grants: after(
      stores.grants,
      ['revokeToken', 'revokeGrant', 'revokeClientGrants', 'revokeAllGrants', 'setClientAllowed'],
      changed,
    ),
    accounts: after(stores.accounts, ['setPlan', 'setPaymentState', 'delete'], changed),
  };
}

type AsyncMethod = (...args: never[]) => Promise<unknown>;

/** `store` with `changed()` called once each named method's promise settles (whether or not it succeeded). */
function after<T extends object>(
  store: T,
  methods: readonly { [K in keyof T]: T[K] extends AsyncMethod ? K : never }[keyof T][],
  changed: () => void,
): T {
  const wrapped = Object.create(store) as T;
  for (const name of methods) {
    const original = store[name] as AsyncMethod;
    Object.defineProperty(wrapped, name, {
      value: (...args: never[]) => original.apply(store, args).finally(changed),
    });
  }
  return wrapped;
}
