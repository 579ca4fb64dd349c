import { html, raw } from 'hono/html';
import type { CeremonyOptions } from '../../core/sessions/passkeys.ts';
import { csrfField } from './layout.ts';

/**
 * The browser's side of a passkey ceremony (decision 0092), for a page holding (`passkeyCeremony`): the options as
 * JSON (`#passkey-options`), a button (`#passkey-button`), a hidden form (`#passkey-form`, field `credential`) and a
 * status line (`#passkey-status`). The button asks the browser for the passkey; its answer, as JSON, is posted with the form
 * — no fetch (the pages allow none). `mode` is `create` (adding one) or `get` (signing in).
 */
const script = (mode: 'create' | 'get') => `(() => {
  const button = document.getElementById('passkey-button');
  const status = document.getElementById('passkey-status');
  if (!button || !status) return;
  if (!window.PublicKeyCredential || !navigator.credentials) {
    button.disabled = true;
    status.textContent = 'This browser cannot use passkeys.';
    return;
  }
  const enc = (buf) => {
    let s = '';
    for (const x of new Uint8Array(buf)) s += String.fromCharCode(x);
    return btoa(s).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  };
  const dec = (s) =>
    Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (s.length % 4)) % 4)), (c) =>
      c.charCodeAt(0),
    );
  const text = document.getElementById('passkey-options').textContent;
  const form = document.getElementById('passkey-form');
  button.addEventListener('click', async () => {
    const o = JSON.parse(text);
    o.challenge = dec(o.challenge);
    const ids = (list) => (list || []).map((c) => ({ ...c, id: dec(c.id) }));
    ${mode === 'create' ? `o.user.id = dec(o.user.id); o.excludeCredentials = ids(o.excludeCredentials);` : `o.allowCredentials = ids(o.allowCredentials);`}
    status.textContent = 'Waiting for your passkey…';
    try {
      const c = await navigator.credentials.${mode}({ publicKey: o });
      const r = c.response;
      const answer = {
        id: c.id,
        rawId: enc(c.rawId),
        type: c.type,
        authenticatorAttachment: c.authenticatorAttachment || undefined,
        clientExtensionResults: c.getClientExtensionResults(),
        response: ${
          mode === 'create'
            ? `{
          clientDataJSON: enc(r.clientDataJSON),
          attestationObject: enc(r.attestationObject),
          transports: r.getTransports ? r.getTransports() : [],
        }`
            : `{
          clientDataJSON: enc(r.clientDataJSON),
          authenticatorData: enc(r.authenticatorData),
          signature: enc(r.signature),
          userHandle: r.userHandle ? enc(r.userHandle) : undefined,
        }`
        },
      };
      form.elements.credential.value = JSON.stringify(answer);
      status.textContent = 'Checking…';
      form.submit();
    } catch (e) {
      status.textContent = 'No passkey was used (' + (e && e.name ? e.name : 'cancelled') + '). You can try again.';
    }
  });
})();`;

const SCRIPTS = { create: script('create'), get: script('get') };

/**
 * A whole ceremony on a page: the options as a JSON data block (never run; `<` escaped so no text in them can end
 * the block), the form the answer is posted by (its CSRF token and `hidden` fields), the button, the status line and
 * the script under the response's nonce.
 */
export function passkeyCeremony(o: {
  readonly mode: 'create' | 'get';
  readonly options: CeremonyOptions;
  readonly action: string;
  readonly csrf: string;
  readonly nonce: string;
  readonly hidden: Readonly<Record<string, string>>;
  readonly button: string;
}) {
  return html`<script type="application/json" id="passkey-options">
      ${raw(JSON.stringify(o.options).replace(/</g, '\\u003c'))}
    </script>
    <form id="passkey-form" method="post" action="${o.action}">
      ${csrfField(o.csrf)}
      ${Object.entries(o.hidden).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
      <input type="hidden" name="credential" value="" />
    </form>
    <button type="button" id="passkey-button">${o.button}</button>
    <p id="passkey-status" class="muted" role="status"></p>
    <script nonce="${o.nonce}">
      ${raw(SCRIPTS[o.mode])};
    </script>`;
}

/** A passkey's answer as posted: JSON of at most 64 KB, or undefined. */
export function postedCredential(text: string): unknown {
  if (text.length === 0 || text.length > 65_536) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
