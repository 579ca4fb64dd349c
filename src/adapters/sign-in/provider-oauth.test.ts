import { afterEach, describe, expect, it, vi } from 'vitest';
import { MailAuthError, MailProviderError } from '../../core/mail/mail-ports.ts';
import { CLIENT_REFUSED_PAUSE_MS, googleProfile, microsoftProfile, ProviderOAuth } from './provider-oauth.ts';

// The refusals of a refresh, told apart (decision 0138). End to end against emulate's Entra sign-in:
// test/graph/graph-mcp.test.ts.
describe('a refresh the provider refuses', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Google's endpoints answered in memory: discovery, and the token endpoint with `error`; counts token requests. */
  const provider = (error: string) => {
    const asked = { tokens: 0 };
    const issuer = 'https://accounts.example.test';
    const fetch = (url: string | URL | Request): Promise<Response> => {
      const href = url instanceof Request ? url.url : String(url);
      if (href.endsWith('/.well-known/openid-configuration'))
        return Promise.resolve(
          Response.json({
            authorization_endpoint: `${issuer}/auth`,
            token_endpoint: `${issuer}/token`,
            userinfo_endpoint: `${issuer}/userinfo`,
          }),
        );
      asked.tokens++;
      return Promise.resolve(Response.json({ error, error_description: 'secret words' }, { status: 401 }));
    };
    const oauth = new ProviderOAuth({
      profile: googleProfile(issuer),
      clientId: 'client',
      clientSecret: 'expired',
      redirectUri: 'https://triage.example.test/connect/google/callback',
      fetch,
    });
    return { oauth, asked };
  };

  it("invalid_client: the service's own credentials, named for the operator; not asked again for a minute", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { oauth, asked } = provider('invalid_client');
    const refused = await oauth.refresh('rt-1').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(MailProviderError);
    expect(refused).not.toBeInstanceOf(MailAuthError);
    expect((refused as Error).message).toBe(
      "Google refused this service's own credentials (invalid_client): no Google mailbox can be reached until " +
        "GOOGLE_CLIENT_SECRET is renewed. The mailbox's sign-in is not at fault",
    );
    // Every inbox's sync and watcher would ask every poll: within the minute, none does.
    await expect(oauth.refresh('rt-2')).rejects.toThrow('GOOGLE_CLIENT_SECRET is renewed');
    expect(asked.tokens).toBe(1);
    vi.setSystemTime(Date.now() + CLIENT_REFUSED_PAUSE_MS + 1);
    await expect(oauth.refresh('rt-2')).rejects.toThrow('GOOGLE_CLIENT_SECRET is renewed');
    expect(asked.tokens).toBe(2);
  });

  it('invalid_grant and unauthorized_client: the sign-in itself, to make again; asked each time', async () => {
    for (const error of ['invalid_grant', 'unauthorized_client']) {
      const { oauth, asked } = provider(error);
      for (const token of ['rt-1', 'rt-2'])
        await expect(oauth.refresh(token)).rejects.toThrow(
          new MailAuthError(`Google no longer accepts this sign-in (${error}); sign in again`),
        );
      expect(asked.tokens).toBe(2);
    }
  });

  it('a code exchange refused for the same reason says whose it is to fix', async () => {
    const { oauth } = provider('invalid_client');
    await expect(oauth.exchange('code', 'verifier')).rejects.toThrow('; tell whoever runs this service');
  });

  it('a discovery refused (a wrong tenant) says where it asked and what came back', async () => {
    const oauth = new ProviderOAuth({
      profile: microsoftProfile('https://login.example.test', 'not-a-tenant', 'https://graph.example.test'),
      clientId: 'client',
      clientSecret: 'secret',
      redirectUri: 'https://triage.example.test/connect/microsoft/callback',
      fetch: () =>
        Promise.resolve(
          Response.json({ error: 'invalid_tenant', error_description: 'AADSTS90002' }, { status: 400 }),
        ),
    });
    await expect(oauth.refresh('rt')).rejects.toThrow(
      new MailProviderError(
        'Microsoft sign-in could not be discovered at ' +
          'https://login.example.test/not-a-tenant/v2.0/.well-known/openid-configuration (HTTP 400 invalid_tenant)',
      ),
    );
  });
});
