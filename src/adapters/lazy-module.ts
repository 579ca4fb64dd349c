import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A dependency loaded the first time it is used, synchronously (decision 0027): a service on SQLite with only the
 * demo inbox never loads PostgreSQL's driver, the job queue, IMAP, SMTP or the Gmail client. `require` also loads ES
 * modules without top-level await (Node 22.12+).
 */
export class LazyModule<T> {
  private loaded: T | undefined;
  private readonly specifier: string;
  constructor(specifier: string) {
    this.specifier = specifier;
  }

  load(): T {
    return (this.loaded ??= require(this.specifier) as T);
  }
}
