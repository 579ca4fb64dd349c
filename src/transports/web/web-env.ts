import type { Account } from '../../core/accounts/account.ts';
import type { HttpEnv } from '../http/http-env.ts';

export interface WebEnv extends HttpEnv {
  Variables: HttpEnv['Variables'] & {
    /** The signed-in person, when there is a live session. */
    account: Account | undefined;
    sessionToken: string | undefined;
    /** This browser's CSRF token, to embed in forms. */
    csrf: string;
    /** Per-response CSP nonce for the few inline scripts (the copy button). */
    nonce: string;
    /** An extra CSP form-action source: the consent page's POST ends in a redirect to the client. */
    formActionTarget: string | undefined;
  };
}
