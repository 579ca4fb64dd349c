// Shared by every view: the MCP Apps handshake over postMessage (JSON-RPC 2.0, protocol 2026-01-26), the host's
// theme, size reports, tool calls through the host, and small DOM helpers. Text from senders is only ever set as
// textContent; nothing here builds HTML from data.
'use strict';

// eslint-disable-next-line @typescript-eslint/no-unused-vars -- used by the view's script that follows in the same file
const Kit = (() => {
  const PROTOCOL = '2026-01-26';
  const handlers = new Map();
  const waiting = new Map();
  let nextId = 1;
  const post = (message) => window.parent.postMessage(message, '*');

  window.addEventListener('message', (event) => {
    if (event.source !== window.parent) return;
    const m = event.data;
    if (m === null || typeof m !== 'object' || m.jsonrpc !== '2.0') return;
    if (m.method === undefined) {
      const w = waiting.get(m.id);
      if (w === undefined) return;
      waiting.delete(m.id);
      if (m.error !== undefined) w.reject(new Error(m.error.message || 'The host refused the request.'));
      else w.resolve(m.result);
      return;
    }
    const handler = handlers.get(m.method);
    if (m.id === undefined) {
      if (handler !== undefined) handler(m.params || {});
      return;
    }
    // Requests from the host: ping and teardown need nothing from a view that keeps no state on the server.
    Promise.resolve(handler === undefined ? undefined : handler(m.params || {})).then((result) => {
      if (result !== undefined || m.method === 'ping' || m.method === 'ui/resource-teardown')
        post({ jsonrpc: '2.0', id: m.id, result: result || {} });
      else post({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
    });
  });

  function request(method, params) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      post({ jsonrpc: '2.0', id, method, params });
    });
  }

  function applyContext(context) {
    if (context.theme === 'light' || context.theme === 'dark')
      document.documentElement.dataset.theme = context.theme;
    const variables = (context.styles && context.styles.variables) || {};
    for (const [name, value] of Object.entries(variables)) {
      if (/^--[a-z0-9-]+$/.test(name) && typeof value === 'string')
        document.documentElement.style.setProperty(name, value);
    }
    if (typeof context.locale === 'string') document.documentElement.lang = context.locale;
  }

  /** The arguments the tool was called with (the host's tool-input notification). */
  let toolInput = {};

  let lastHeight = 0;
  function reportSize() {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height === lastHeight) return;
    lastHeight = height;
    post({ jsonrpc: '2.0', method: 'ui/notifications/size-changed', params: { height } });
  }

  /** Connects to the host; `onResult` gets every tool result meant for this view (the first one, then refreshes). */
  async function start(name, onResult) {
    handlers.set('ui/notifications/tool-input', (params) => {
      toolInput = params.arguments || {};
    });
    handlers.set('ui/notifications/tool-result', onResult);
    handlers.set('ui/notifications/host-context-changed', applyContext);
    handlers.set('ui/notifications/tool-cancelled', () => say('The host cancelled this request.', 'error'));
    handlers.set('ui/resource-teardown', () => ({}));
    const params = {
      appInfo: { name: `inbox-triage-${name}`, version: '1' },
      appCapabilities: {},
      protocolVersion: PROTOCOL,
    };
    // A host that starts listening only after the frame loaded misses the first request: ask again, a few times.
    let tries = 0;
    let retry;
    const init = await new Promise((resolve, reject) => {
      const ask = () => {
        tries += 1;
        request('ui/initialize', params).then(resolve, reject);
        if (tries < 10) retry = setTimeout(ask, 500 * tries);
      };
      ask();
    });
    clearTimeout(retry);
    applyContext((init && init.hostContext) || {});
    post({ jsonrpc: '2.0', method: 'ui/notifications/initialized', params: {} });
    new ResizeObserver(reportSize).observe(document.documentElement);
    reportSize();
  }

  /**
   * Calls one of our tools through the host. Resolves to `{ ok: true, data, view }` or `{ ok: false, error, message }`
   * — a refusal in words, whether the tool said no or the host did.
   */
  async function call(tool, args) {
    try {
      const r = await request('tools/call', { name: tool, arguments: args });
      const data = (r && r.structuredContent) || parseText(r);
      if (r && r.isError) return { ok: false, error: (data && data.error) || 'error', message: words(data) };
      return { ok: true, data: data || {}, view: (r && r._meta) || {} };
    } catch (e) {
      return {
        ok: false,
        error: 'host_refused',
        message: e instanceof Error ? e.message : 'The host refused the request.',
      };
    }
  }

  function parseText(r) {
    const text = r && r.content && r.content[0] && r.content[0].text;
    try {
      return typeof text === 'string' ? JSON.parse(text) : undefined;
    } catch {
      return undefined;
    }
  }

  const words = (data) => clean((data && (data.sayToHuman || data.message)) || 'Something went wrong.');

  /** Sender-written text arrives between ⟦id⟧…⟦/id⟧ marks for the model; the person sees the words alone. */
  const clean = (text) => String(text == null ? '' : text).replace(/\u27e6\/?[a-z0-9]{6}\u27e7/g, '');

  /** An element with attributes (`on*` functions become listeners) and children (strings become text). */
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
      else if (key === 'text') node.textContent = String(value);
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children.flat()) {
      if (child === undefined || child === null || child === false) continue;
      node.append(typeof child === 'string' ? document.createTextNode(child) : child);
    }
    return node;
  }

  /** The status line every view has (a polite live region): what just happened, or what went wrong, in words. */
  function say(text, kind) {
    const status = document.getElementById('status');
    if (status === null) return;
    status.textContent = text;
    status.className = `status ${kind || ''}`;
  }

  function when(iso) {
    const d = new Date(iso);
    if (Number.isNaN(d.getTime())) return '';
    const today = new Date();
    return d.toDateString() === today.toDateString()
      ? d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
      : d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' });
  }

  const sender = (address) => clean((address && (address.name || address.address)) || 'Unknown sender');

  /** Renders the first result, or says what went wrong: never a blank frame. */
  function show(render) {
    return (result) => {
      const root = document.getElementById('app');
      const data = (result && result.structuredContent) || parseText(result);
      root.replaceChildren();
      if (result && result.isError) {
        root.append(el('p', { class: 'status error', role: 'alert', text: words(data) }));
        return;
      }
      try {
        render(root, data || {}, (result && result._meta) || {});
      } catch (e) {
        root.append(
          el('p', { class: 'status error', role: 'alert', text: 'This view could not show the result.' }),
        );
        throw e;
      }
    };
  }

  /**
   * The "Show more" control under a view's list (`#list`): `page(offset)` asks the tool for the page at that offset
   * and resolves to the call's outcome with `rows` (its list items) and `next` (the offset after it, or null).
   */
  function pager(next, page) {
    const box = el('div', { class: 'actions', id: 'more' });
    const offer = (offset) =>
      box.replaceChildren(
        ...parts(
          offset !== null && el('button', { type: 'button', onclick: () => more(offset) }, 'Show more'),
        ),
      );
    async function more(offset) {
      say('Loading…');
      const r = await page(offset);
      if (!r.ok) {
        say(r.message, 'error');
        return;
      }
      document.getElementById('list').append(...r.rows);
      offer(r.next);
      say('');
    }
    offer(next);
    return box;
  }

  /** Inbox tabs: a button per inbox, the selected one marked; `pick(id)` loads that one. */
  function tabs(items, selected, pick) {
    return el(
      'div',
      { class: 'tabs', role: 'tablist', 'aria-label': 'Inboxes' },
      items.map((i) =>
        el(
          'button',
          {
            type: 'button',
            role: 'tab',
            'aria-selected': String(i.id === selected),
            onclick: () => pick(i.id),
          },
          i.label,
        ),
      ),
    );
  }

  /** Children for `append`: nested lists flattened, and the `false`/null of a `cond && el(…)` left out. */
  const parts = (...children) => children.flat().filter((c) => c !== false && c !== null && c !== undefined);

  return { start, call, el, parts, pager, tabs, say, clean, when, sender, show, input: () => toolInput };
})();
