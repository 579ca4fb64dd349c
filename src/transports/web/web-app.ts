import type { Hono } from 'hono';
import type { HttpEnv } from '../http/http-env.ts';
import { csrfProtection } from './csrf.ts';
import { registerActivityPage } from './pages/activity-page.ts';
import { registerPreferencesPage } from './pages/preferences-page.ts';
import { registerWaitingPage } from './pages/waiting-page.ts';
import { registerScreenedPage } from './pages/screened-page.ts';
import { registerApiKeysPage } from './pages/api-keys-page.ts';
import { registerConnectedAgentsPage } from './pages/connected-agents-page.ts';
import { registerConsentPage } from './pages/consent-page.ts';
import { registerConnectImapPage } from './pages/connect-imap-page.ts';
import { registerConnectProviderPages } from './pages/connect-provider-page.ts';
import { registerInboxesPage } from './pages/inboxes-page.ts';
import { registerDeleteAccountPage } from './pages/delete-account-page.ts';
import { registerPasswordPages } from './pages/password-pages.ts';
import { registerBrowsersPage } from './pages/browsers-page.ts';
import { registerSettingsPage } from './pages/settings-page.ts';
import { registerSetupPage } from './pages/setup-page.ts';
import { registerSignInPage } from './pages/sign-in-page.ts';
import { registerSignUpPages } from './pages/sign-up-page.ts';
import { registerTwoStepPage } from './pages/two-step-page.ts';
import { registerPasskeysPage } from './pages/passkeys-page.ts';
import { securityHeaders } from './security-headers.ts';
import { loadSession } from './session.ts';
import type { WebDeps } from './web-deps.ts';
import type { WebEnv } from './web-env.ts';

/** Paths served to browsers. Middlewares are registered per path so they never touch /mcp or /api. */
// '/settings/*' also matches '/settings' in Hono; listing both would run each middleware twice.
export const PAGE_PATHS = [
  '/',
  '/setup',
  '/signin',
  '/signin/code',
  '/signin/passkey',
  '/signout',
  '/signup',
  '/invite',
  '/reset',
  '/settings/*',
  '/oauth/consent',
  '/oauth/authorize',
  '/connect/*',
  '/inboxes/*',
  '/waiting/*',
  '/screened/*',
];

export function registerWebApp(root: Hono<HttpEnv>, deps: WebDeps): void {
  const app = root as unknown as Hono<WebEnv>;
  for (const path of PAGE_PATHS) {
    app.use(
      path,
      securityHeaders({ https: deps.cookies.secure }),
      csrfProtection({ ...deps.cookies, origin: new URL(deps.baseUrl).origin }),
      loadSession(deps.sessions, deps.cookies),
    );
  }
  registerSetupPage(app, deps);
  registerSignInPage(app, deps);
  registerSignUpPages(app, deps);
  registerSettingsPage(app, deps);
  registerApiKeysPage(app, deps);
  registerActivityPage(app, deps);
  registerPreferencesPage(app, deps);
  registerWaitingPage(app, deps);
  registerScreenedPage(app, deps);
  registerConnectedAgentsPage(app, deps);
  registerConsentPage(app, deps);
  registerConnectImapPage(app, deps.inboxes);
  registerConnectProviderPages(app, deps.inboxes);
  registerInboxesPage(app, deps);
  registerDeleteAccountPage(app, deps);
  registerPasswordPages(app, deps);
  registerTwoStepPage(app, deps);
  registerPasskeysPage(app, deps);
  registerBrowsersPage(app, deps);
}
