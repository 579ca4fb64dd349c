import { createEmulator } from 'emulate';
import { freePort } from './free-port.ts';

/**
 * Microsoft's sign-in for tests: `emulate@0.12.2`'s Entra-shaped OAuth (discovery per tenant, a sign-in page with
 * one button per seeded user, PKCE, refresh tokens that rotate on every refresh, as Microsoft's do). Mail itself
 * is the Graph stub (graph-stub.ts). Binds 127.0.0.1.
 */
export interface MicrosoftSignIn {
  /** Stands for https://login.microsoftonline.com: set MICROSOFT_AUTHORITY to it. */
  readonly url: string;
  close(): Promise<void>;
}

export async function startMicrosoftSignIn(opts: {
  user: string;
  client?: { id: string; secret: string; redirectUri: string };
}): Promise<MicrosoftSignIn> {
  const port = await freePort();
  const url = `http://127.0.0.1:${String(port)}`;
  const emu = await createEmulator({
    service: 'microsoft',
    port,
    hostname: '127.0.0.1',
    baseUrl: url,
    seed: {
      microsoft: {
        users: [{ email: opts.user, name: 'Pat Person' }],
        ...(opts.client !== undefined && {
          oauth_clients: [
            {
              client_id: opts.client.id,
              client_secret: opts.client.secret,
              redirect_uris: [opts.client.redirectUri],
              name: 'Inbox Triage (test)',
            },
          ],
        }),
      },
    },
  });
  return { url, close: () => emu.close() };
}
