// Mailing-list senders (review_unsubscribes). Unsubscribe proposes the one request; the person's second click on
// Confirm sends it. Both steps are the model's own tools, called through the host.
'use strict';

(() => {
  const { el, call, say, clean, when, sender } = Kit;
  let view;

  function render(root, data) {
    const inbox = Kit.input().inbox;
    view = { inbox: typeof inbox === 'string' && inbox !== '' ? inbox : undefined };
    root.append(
      ...Kit.parts(
        el('h1', { text: `Mailing-list senders — ${String(data.total)}` }),
        el('p', {
          class: 'muted',
          text: 'Unsubscribing sends one request to the sender; nothing else happens to your mail.',
        }),
        el('p', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' }),
        el('ul', { class: 'rows', id: 'list', 'aria-label': 'Senders' }, data.senders.map(row)),
        data.senders.length === 0 &&
          el('p', { class: 'muted', text: 'No mailing-list senders in the synced mail.' }),
        Kit.pager(data.nextOffset, async (offset) => {
          const r = await call('review_unsubscribes', { ...(view.inbox && { inbox: view.inbox }), offset });
          return r.ok ? { ok: true, rows: r.data.senders.map(row), next: r.data.nextOffset } : r;
        }),
      ),
    );
  }

  function row(s) {
    const li = el('li', { 'data-message-id': s.messageId });
    const status = s.unsubscribed === null ? null : done(s.unsubscribed);
    li.append(
      el(
        'div',
        { class: 'grow' },
        el('div', { class: 'line', text: sender(s.sender) }),
        el('div', {
          class: 'line muted',
          text: clean(s.sender.address) + (s.listId ? ` · ${clean(s.listId)}` : ''),
        }),
        el('div', {
          class: 'muted',
          text: `${String(s.messages)} message${s.messages === 1 ? '' : 's'}, ${String(s.unread)} unread · last ${when(s.lastSeen)}${s.vip ? ' · VIP' : ''}`,
        }),
        status && el('div', { class: 'note', text: status }),
      ),
      el(
        'div',
        { class: 'actions' },
        s.oneClickAdvertised && (s.unsubscribed === null || s.unsubscribed.result !== 'done')
          ? el(
              'button',
              {
                type: 'button',
                'aria-label': `Unsubscribe from ${sender(s.sender)}`,
                onclick: () => propose(li, s),
              },
              'Unsubscribe',
            )
          : el('span', { class: 'muted', text: s.oneClickAdvertised ? '' : 'No one-click link' }),
      ),
    );
    return li;
  }

  function done(u) {
    const words = {
      done: 'Unsubscribed',
      rejected: 'The sender refused the request',
      refused: 'Not sent: unsafe link',
      unknown: 'Sent, no answer',
    };
    return `${words[u.result]} (${when(u.at)})${u.mailSince ? ' — mail kept coming since' : ''}`;
  }

  async function propose(li, s) {
    const actions = li.querySelector('.actions');
    for (const b of actions.querySelectorAll('button')) b.disabled = true;
    say('Checking the unsubscribe link…');
    const r = await call('propose_unsubscribe', { inboxId: s.inboxId, messageId: s.messageId });
    if (!r.ok) {
      say(
        r.error === 'vip_confirmation_required'
          ? 'This sender is a VIP: ask in the chat to unsubscribe.'
          : r.message,
        'error',
      );
      for (const b of actions.querySelectorAll('button')) b.disabled = false;
      return;
    }
    const p = r.data;
    say(`Proposed. Press Confirm to send the one request to ${sender(s.sender)}.`);
    actions.replaceChildren(
      el(
        'button',
        {
          type: 'button',
          class: 'primary',
          'aria-label': `Confirm unsubscribing from ${sender(s.sender)}`,
          onclick: () => confirm(li, s, p),
        },
        'Confirm',
      ),
      el(
        'button',
        {
          type: 'button',
          onclick: () => {
            li.replaceWith(row(s));
            say('');
          },
        },
        'Cancel',
      ),
    );
  }

  async function confirm(li, s, p) {
    const actions = li.querySelector('.actions');
    for (const b of actions.querySelectorAll('button')) b.disabled = true;
    say('Sending the unsubscribe request…');
    const r = await call('confirm_unsubscribe', {
      pendingUnsubscribeId: p.pendingUnsubscribeId,
      approvalCode: p.approvalCode,
      humanApprovedInChat: true,
    });
    if (!r.ok) {
      say(r.message, 'error');
      return;
    }
    say(clean(r.data.sayToHuman) || 'Done.', r.data.unsubscribed ? 'done' : 'error');
    actions.replaceChildren(
      el('span', {
        class: 'muted',
        text: done({ result: r.data.result, at: new Date().toISOString(), mailSince: false }),
      }),
    );
  }

  Kit.start('unsubscribes', Kit.show(render));
})();
