// Screened mail (show_screened): inbox tabs, a period picker, Rescue and Report on each row.
'use strict';

(() => {
  const { el, call, say, clean, when, sender } = Kit;
  const PERIODS = [1, 7, 30, 90];
  let view;

  function render(root, data, meta) {
    // An agent the person does not let screen gets the rows without Rescue and Report (decision 0141).
    const mayScreen = !(meta && meta.may && meta.may.screen === false);
    view = { inbox: data.inbox, days: data.days, mayScreen };
    root.append(
      ...Kit.parts(
        data.inboxes.length > 1 &&
          Kit.tabs([{ id: null, label: 'All inboxes' }, ...data.inboxes], data.inbox, (id) =>
            load({ inbox: id, days: view.days }),
          ),
        el(
          'div',
          { class: 'bar' },
          el('h1', { class: 'grow', text: 'Screened mail' }),
          el('label', { for: 'days', class: 'muted', style: 'margin:0' }, 'Period'),
          el(
            'select',
            {
              id: 'days',
              style: 'width:auto',
              onchange: (e) => load({ inbox: view.inbox, days: Number(e.target.value) }),
            },
            PERIODS.map((d) =>
              el(
                'option',
                { value: d, selected: d === data.days },
                d === 1 ? 'Last day' : `Last ${String(d)} days`,
              ),
            ),
          ),
        ),
        el('p', { class: 'muted', text: data.digest }),
        el('p', { id: 'status', class: 'status', role: 'status', 'aria-live': 'polite' }),
        el('ul', { class: 'rows', id: 'list', 'aria-label': 'Screened messages' }, data.rows.map(row)),
        Kit.pager(data.nextOffset, async (offset) => {
          const r = await call('show_screened', { ...asked(view), offset });
          return r.ok ? { ok: true, rows: r.data.rows.map(row), next: r.data.nextOffset } : r;
        }),
      ),
    );
  }

  /** The arguments for show_screened that keep the chosen inbox and period. */
  const asked = (args) => ({
    ...(args.inbox !== null && args.inbox !== undefined && { inbox: args.inbox }),
    ...(args.days !== null && { days: args.days }),
  });

  function row(r) {
    const li = el('li', { 'data-screened-id': r.id });
    const subject = clean(r.subject) || '(no subject)';
    li.append(
      ...Kit.parts(
        el(
          'div',
          { class: 'grow' },
          el(
            'div',
            { class: 'line' },
            el('span', { text: sender(r.sender) }),
            el('span', { class: 'muted', text: ` · ${when(r.date)}` }),
          ),
          el('div', { class: 'line subject', text: subject }),
          r.reason !== null && el('div', { class: 'muted', text: `Why: ${clean(r.reason)}` }),
        ),
        view.mayScreen &&
          el(
            'div',
            { class: 'actions' },
            el(
              'button',
              {
                type: 'button',
                'aria-label': `Rescue: ${subject}`,
                onclick: () =>
                  act(li, r, 'rescue_screened', 'Back in the inbox; the sender is now known-good.'),
              },
              'Rescue',
            ),
            el(
              'button',
              {
                type: 'button',
                class: 'danger',
                'aria-label': `Report: ${subject}`,
                onclick: () => act(li, r, 'report_screened', 'Reported as spam.'),
              },
              'Report',
            ),
          ),
      ),
    );
    return li;
  }

  async function act(li, r, tool, words) {
    for (const b of li.querySelectorAll('button')) b.disabled = true;
    const result = await call(tool, { inboxId: r.inboxId, id: r.id });
    if (!result.ok) {
      say(result.message, 'error');
      for (const b of li.querySelectorAll('button')) b.disabled = false;
      return;
    }
    // The tool's own words say what was blocked, if anything (a domain, an address, or nothing for a forged sender).
    words = clean(result.data.sayToHuman) || words;
    say(words, 'done');
    li.replaceChildren(
      el('div', { class: 'grow muted', text: `${words} — ${clean(r.subject) || '(no subject)'}` }),
    );
  }

  async function load(args) {
    say('Loading…');
    const r = await call('show_screened', asked(args));
    if (!r.ok) {
      say(r.message, 'error');
      return;
    }
    Kit.show(render)({ structuredContent: r.data, _meta: r.view });
  }

  Kit.start('screened', Kit.show(render));
})();
