// The draft card (show_draft): To, Subject and the text, editable; Save and Send. Its buttons work only with the
// single-use card code that came with the result's _meta, never shown to the model.
'use strict';

(() => {
  const { el, call, say } = Kit;
  const CARD = 'inbox-triage/card';
  let state;

  const fields = () => ({
    to: document.getElementById('to').value,
    subject: document.getElementById('subject').value,
    body: document.getElementById('body').value,
  });
  const dirty = () => {
    const now = fields();
    return now.to !== state.saved.to || now.subject !== state.saved.subject || now.body !== state.saved.body;
  };

  function render(root, data, meta) {
    const draft = data.draft;
    const card = meta[CARD];
    state = {
      inboxId: data.inboxId,
      draftId: draft.id,
      code: card && typeof card.code === 'string' ? card.code : null,
      saved: { to: draft.to, subject: draft.subject, body: draft.text },
      open: draft.status === 'draft',
    };
    const editable = state.open && state.code !== null;
    const input = (id, name, value, tag) =>
      tag === 'textarea'
        ? el('textarea', { id, name, rows: 10, readonly: !editable, oninput: changed }, value)
        : el('input', {
            id,
            name,
            type: 'text',
            value,
            readonly: !editable,
            autocomplete: 'off',
            oninput: changed,
          });
    root.append(
      ...Kit.parts(
        el('h1', { text: draft.status === 'sent' ? 'Sent email' : 'Draft email' }),
        el('p', { class: 'muted', text: note(draft, data, editable) }),
        el('p', { id: 'unseen', class: 'status error', text: unseen(card), hidden: unseen(card) === '' }),
        el('label', { for: 'to', text: 'To' }),
        input('to', 'to', draft.to),
        el('label', { for: 'subject', text: 'Subject' }),
        input('subject', 'subject', draft.subject),
        el('label', { for: 'body', text: 'Text' }),
        input('body', 'body', draft.text, 'textarea'),
        el('p', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' }),
        el(
          'div',
          { class: 'actions' },
          editable && el('button', { id: 'save', type: 'button', disabled: true, onclick: save }, 'Save'),
          editable &&
            data.sendAvailable === true &&
            el('button', { id: 'send', type: 'button', class: 'primary', onclick: send }, 'Send'),
          !editable && el('button', { id: 'reload', type: 'button', onclick: reload }, 'Reload'),
        ),
      ),
    );
  }

  /** The server's words when the draft holds characters that show nothing (decision 0112), or ''. */
  const unseen = (card) => (card && typeof card.unseen === 'string' ? card.unseen : '');

  function note(draft, data, editable) {
    if (draft.status === 'sent') return 'This email was sent.';
    if (draft.status !== 'draft') return 'This draft was discarded.';
    if (!editable) return 'This card cannot change the draft now. Reload it, or edit it in your mail app.';
    return data.sendAvailable === true
      ? 'Nothing is sent until you press Send. Edits are saved to your Drafts folder.'
      : 'Sending from here is off, so you can edit and save; send it from your mail app.';
  }

  function changed() {
    const save = document.getElementById('save');
    if (save !== null) save.disabled = !dirty();
  }

  function busy(on) {
    for (const id of ['save', 'send', 'to', 'subject', 'body']) {
      const node = document.getElementById(id);
      if (node === null) continue;
      if (node.tagName === 'BUTTON') node.disabled = on || (id === 'save' && !dirty());
      else node.readOnly = on;
    }
  }

  async function save() {
    busy(true);
    say('Saving…');
    const ok = await saveNow();
    busy(false);
    if (ok) say('Saved to your Drafts folder.', 'done');
  }

  async function saveNow() {
    const content = fields();
    const r = await call('update_draft_from_card', { nonce: state.code, ...content });
    if (!r.ok) {
      failed(r);
      return false;
    }
    const card = r.view[CARD];
    state.code = card && typeof card.code === 'string' ? card.code : null;
    const warning = document.getElementById('unseen');
    warning.textContent = unseen(card);
    warning.hidden = warning.textContent === '';
    state.saved = { to: r.data.draft.to, subject: r.data.draft.subject, body: r.data.draft.text };
    for (const [id, value] of Object.entries(state.saved)) document.getElementById(id).value = value;
    return state.code !== null;
  }

  async function send() {
    busy(true);
    if (dirty()) {
      say('Saving your edit before sending…');
      if (!(await saveNow())) {
        busy(false);
        return;
      }
    }
    say('Sending…');
    const r = await call('send_draft_from_card', { nonce: state.code, ...state.saved });
    if (!r.ok) {
      busy(false);
      failed(r);
      return;
    }
    state.open = false;
    for (const id of ['save', 'send']) document.getElementById(id)?.remove();
    for (const id of ['to', 'subject', 'body']) document.getElementById(id).readOnly = true;
    say(r.data.sayToHuman || 'Sent.', 'done');
  }

  function failed(r) {
    say(r.message, 'error');
    // A spent, expired or outdated code: the card fetches a fresh one with the draft as it is now.
    if (['approval_used', 'approval_expired', 'approval_invalid'].includes(r.error)) {
      const actions = document.querySelector('.actions');
      if (document.getElementById('reload') === null)
        actions.append(el('button', { id: 'reload', type: 'button', onclick: reload }, 'Reload'));
    }
  }

  async function reload() {
    say('Loading the draft…');
    const r = await call('show_draft', { inboxId: state.inboxId, draftId: state.draftId });
    if (!r.ok) {
      say(r.message, 'error');
      return;
    }
    Kit.show(render)({ structuredContent: r.data, _meta: r.view });
  }

  Kit.start('draft', Kit.show(render));
})();
