import type { MiddlewareHandler } from 'hono';
import { randomToken } from '../../lib/random.ts';
import type { WebEnv } from './web-env.ts';

/**
 * Pages load nothing from elsewhere and run only nonce-tagged inline scripts; they cannot be framed
 * (clickjacking a "Create key" or "Approve" button) and are never cached (a shown key must not linger). At an https
 * address a browser is told to come back only over https for a year (HSTS, decision 0135): a network that strips TLS
 * on a later visit cannot show the sign-in or approval pages in plain text. Not for subdomains, which may be others'.
 */
export const securityHeaders =
  (o: { https: boolean }): MiddlewareHandler<WebEnv> =>
  async (c, next) => {
    const nonce = randomToken(22);
    c.set('nonce', nonce);
    await next();
    const target = c.get('formActionTarget');
    const formAction = target === undefined ? "'self'" : `'self' ${target}`;
    c.header(
      'Content-Security-Policy',
      `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; img-src 'self' data:; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    );
    c.header('X-Frame-Options', 'DENY');
    c.header('X-Content-Type-Options', 'nosniff');
    // same-origin, not no-referrer: with no-referrer Chrome sends `Origin: null` on our own form posts.
    c.header('Referrer-Policy', 'same-origin');
    c.header('Cache-Control', 'no-store');
    if (o.https) c.header('Strict-Transport-Security', 'max-age=31536000');
  };
