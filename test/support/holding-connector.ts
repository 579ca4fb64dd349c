import { ImapConnector } from '../../src/adapters/mail/imap/imap-connector.ts';
import type { MailConnector, MailSession } from '../../src/core/mail/mail-ports.ts';

type Held = 'setFlags' | 'move' | 'append';

/**
 * The real IMAP connector, except that the next call of one session method makes its change at the server and then
 * waits before answering: `reached` resolves once the change is made, `release()` lets the call answer. Never
 * released, the call never answers — for the rest of that call the process is as good as killed between the mailbox
 * change and anything after it.
 */
export class HoldingConnector implements MailConnector {
  private held: Held | undefined;
  private onReached: () => void = () => undefined;
  private gate: Promise<void> = Promise.resolve();
  private readonly real = new ImapConnector({ insecureHosts: ['127.0.0.1'] });

  hold(method: Held): { reached: Promise<void>; release: () => void } {
    this.held = method;
    let release: () => void = () => undefined;
    this.gate = new Promise((r) => (release = r));
    const reached = new Promise<void>((r) => (this.onReached = r));
    return { reached, release };
  }

  async connect(...args: Parameters<MailConnector['connect']>): Promise<MailSession> {
    const session = await this.real.connect(...args);
    return new Proxy(session, {
      get: (target, prop) => {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        const fn = value as (...a: unknown[]) => Promise<unknown>;
        if (prop !== this.held) return fn.bind(target);
        return async (...a: unknown[]) => {
          const gate = this.gate;
          const reached = this.onReached;
          this.held = undefined;
          const result = await fn.apply(target, a);
          reached();
          await gate;
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
