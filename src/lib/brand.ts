/** A nominal type: a string that has been checked to be a particular kind of id. */
export type Brand<T, B extends string> = T & { readonly __brand: B };
