import { ImapConnector } from '../../src/adapters/mail/imap/imap-connector.ts';
import type { ChangeOptions, MailConnector, MailSession } from '../../src/core/mail/mail-ports.ts';
import type { RemoteSummary } from '../../src/core/mail/mail-types.ts';

type Held = 'setFlags' | 'move' | 'append' | 'changes';

interface Hold {
  readonly method: Held;
  /** Hold the first batch of new mail the `changes` call hands over, instead of the call's answer. */
  readonly batch: boolean;
  /** Only a call whose first argument (the folder path) is this one. */
  readonly path: string | undefined;
  readonly gate: Promise<void>;
  readonly reached: () => void;
  readonly after: () => Promise<void>;
}

/**
 * The real IMAP connector, except that the next call of one session method makes its change at the server (or, for
 * `changes`, reads the folder) and then waits before answering: `reached` resolves once it is done, `release()` lets
 * the call answer. Never released, the call never answers — for the rest of that call the process is as good as
 * killed between the mailbox change and anything after it. `holdAdded` holds a sync's first batch of new messages
 * instead, read and not yet indexed, and runs `after` once the sync has indexed it.
 */
export class HoldingConnector implements MailConnector {
  private held: Hold | undefined;
  private readonly real = new ImapConnector({ insecureHosts: ['127.0.0.1'] });

  hold(method: Held, opts: { path?: string } = {}): { reached: Promise<void>; release: () => void } {
    return this.arm(method, false, opts.path, () => Promise.resolve());
  }

  holdAdded(
    path: string,
    after: () => Promise<void> = () => Promise.resolve(),
  ): { reached: Promise<void>; release: () => void } {
    return this.arm('changes', true, path, after);
  }

  private arm(method: Held, batch: boolean, path: string | undefined, after: () => Promise<void>) {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let reached: () => void = () => undefined;
    const reachedP = new Promise<void>((r) => (reached = r));
    this.held = { method, batch, path, gate, reached, after };
    return { reached: reachedP, release };
  }

  /** The hold, taken if this call is the one it waits for. */
  private take(method: string, path: unknown): Hold | undefined {
    const h = this.held;
    if (h === undefined || method !== h.method || (h.path !== undefined && path !== h.path)) return undefined;
    this.held = undefined;
    return h;
  }

  async connect(...args: Parameters<MailConnector['connect']>): Promise<MailSession> {
    const session = await this.real.connect(...args);
    return new Proxy(session, {
      get: (target, prop) => {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        const fn = value as (...a: unknown[]) => Promise<unknown>;
        if (prop !== this.held?.method) return fn.bind(target);
        return async (...a: unknown[]) => {
          const h = this.take(prop, a[0]);
          if (h === undefined) return fn.apply(target, a);
          if (h.batch) {
            const opts = a[2] as ChangeOptions;
            const onAdded = opts.onAdded;
            let first = true;
            const wrapped: ChangeOptions = {
              ...opts,
              onAdded: async (batch: readonly RemoteSummary[], reset: boolean) => {
                if (!first || onAdded === undefined) return onAdded?.(batch, reset);
                first = false;
                h.reached();
                await h.gate;
                await onAdded(batch, reset);
                await h.after();
              },
            };
            return fn.apply(target, [a[0], a[1], wrapped]);
          }
          const result = await fn.apply(target, a);
          h.reached();
          await h.gate;
          return result;
        };
      },
    });
  }

  watch(...args: Parameters<MailConnector['watch']>): ReturnType<MailConnector['watch']> {
    return this.real.watch(...args);
  }

  testLogin(...args: Parameters<MailConnector['testLogin']>): ReturnType<MailConnector['testLogin']> {
    return this.real.testLogin(...args);
  }
}
