// The inbox list (show_inbox): the synced window, newest first, with quick actions. Each action is the model's own
// act_on_messages, called through the host, and offers its undo.
'use strict';

(() => {
  const { el, call, say, clean, when, sender } = Kit;
  const DONE = {
    archive: 'Archived',
    trash: 'Moved to Trash',
    spam: 'Moved to Spam',
    star: 'Starred',
    unstar: 'Unstarred',
  };
  let view;

  function render(root, data, meta) {
    // An agent the person does not let tidy gets the list without its buttons (decision 0141).
    const mayTidy = !(meta && meta.may && meta.may.tidy === false);
    view = { inboxId: data.inbox.id, unreadOnly: data.unreadOnly === true, mayTidy };
    root.append(
      ...Kit.parts(
        data.inboxes.length > 1 && Kit.tabs(data.inboxes, data.inbox.id, (id) => load({ inboxId: id })),
        el(
          'div',
          { class: 'bar' },
          el('h1', {
            class: 'grow',
            text: `${data.inbox.label} — ${String(data.total)} message${data.total === 1 ? '' : 's'}`,
          }),
          el(
            'label',
            { class: 'muted' },
            el('input', {
              type: 'checkbox',
              id: 'unread',
              checked: view.unreadOnly,
              style: 'width:auto;margin-right:4px',
              onchange: (e) => load({ inboxId: view.inboxId, unreadOnly: e.target.checked }),
            }),
            'Unread only',
          ),
        ),
        el('p', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' }),
        el('ul', { class: 'rows', id: 'list', 'aria-label': 'Messages' }, data.messages.map(row)),
        data.messages.length === 0 &&
          el('p', { class: 'muted', text: data.total === 0 ? 'Nothing here yet.' : '' }),
        Kit.pager(data.nextOffset, async (offset) => {
          const r = await call('show_inbox', { inboxId: view.inboxId, unreadOnly: view.unreadOnly, offset });
          return r.ok ? { ok: true, rows: r.data.messages.map(row), next: r.data.nextOffset } : r;
        }),
      ),
    );
  }

  function row(m) {
    const li = el('li', { class: m.unread ? 'unread' : '', 'data-message-id': m.messageId });
    fill(li, m);
    return li;
  }

  function fill(li, m) {
    const subject = clean(m.subject) || '(no subject)';
    li.replaceChildren(
      ...Kit.parts(
        el(
          'div',
          { class: 'grow' },
          el(
            'div',
            { class: 'line' },
            el('span', { text: sender(m.from) }),
            m.starred ? ' ★' : '',
            el('span', { class: 'muted', text: ` · ${when(m.date)}` }),
          ),
          el('div', { class: 'line subject', text: subject }),
          el('div', { class: 'line muted', text: clean(m.snippet) }),
        ),
        view.mayTidy &&
          el(
            'div',
            { class: 'actions' },
            ['archive', 'trash', 'spam'].map((a) =>
              el(
                'button',
                { type: 'button', 'aria-label': `${label(a)}: ${subject}`, onclick: () => act(li, m, a) },
                label(a),
              ),
            ),
            el(
              'button',
              {
                type: 'button',
                'aria-label': `${m.starred ? 'Unstar' : 'Star'}: ${subject}`,
                onclick: () => act(li, m, m.starred ? 'unstar' : 'star'),
              },
              m.starred ? 'Unstar' : 'Star',
            ),
          ),
      ),
    );
  }

  const label = (a) => ({ archive: 'Archive', trash: 'Trash', spam: 'Spam' })[a];

  async function act(li, m, action) {
    for (const b of li.querySelectorAll('button')) b.disabled = true;
    const r = await call('act_on_messages', {
      action,
      items: [{ inboxId: view.inboxId, messageId: m.messageId }],
    });
    if (!r.ok) {
      say(r.message, 'error');
      fill(li, m);
      return;
    }
    const skipped = r.data.skipped[0];
    if (r.data.changed.length === 0) {
      say(
        skipped && skipped.reason === 'vip'
          ? 'This is from a VIP: ask in the chat to change it, one message at a time.'
          : clean(r.data.sayToHuman),
        'error',
      );
      fill(li, m);
      return;
    }
    const undoId = r.data.undoId;
    const changed = action === 'star' || action === 'unstar' ? { ...m, starred: action === 'star' } : null;
    say(`${DONE[action]}.`, 'done');
    if (changed !== null) {
      fill(li, changed);
      if (undoId !== null) li.querySelector('.actions').append(undoButton(li, m, undoId));
      return;
    }
    li.replaceChildren(
      el('div', { class: 'grow muted' }, `${DONE[action]}: ${clean(m.subject) || '(no subject)'}`),
      el('div', { class: 'actions' }, undoId !== null && undoButton(li, m, undoId)),
    );
  }

  function undoButton(li, m, undoId) {
    return el(
      'button',
      {
        type: 'button',
        onclick: async (e) => {
          e.target.disabled = true;
          const r = await call('undo_action', { undoId });
          if (!r.ok) {
            say(r.message, 'error');
            e.target.disabled = false;
            return;
          }
          say('Undone.', 'done');
          fill(li, m);
        },
      },
      'Undo',
    );
  }

  async function load(args) {
    say('Loading…');
    const r = await call('show_inbox', args);
    if (!r.ok) {
      say(r.message, 'error');
      return;
    }
    Kit.show(render)({ structuredContent: r.data, _meta: r.view });
  }

  Kit.start('triage', Kit.show(render));
})();
