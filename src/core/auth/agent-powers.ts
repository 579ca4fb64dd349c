/**
 * What the person lets one agent do, credential by credential (decision 0141). Every agent may read: list the
 * inboxes, read, search and sync mail, see the VIPs, the settings and what other agents did. Each power below is
 * granted or not; a credential made without a choice holds every power, those added in later versions too.
 */
export const AGENT_POWERS = ['tidy', 'screen', 'draft', 'unsubscribe', 'setup'] as const;

export type AgentPower = (typeof AGENT_POWERS)[number];

/**
 * What a tool or a route needs: reading, which every agent has, one power, or any one of several (the triage lease
 * and undo serve whoever may change mail: tidying and screening alike).
 */
export type Needs = 'read' | AgentPower | readonly [AgentPower, ...AgentPower[]];

/** What the triage lease and undo need: any power that changes mail (tidying, screening). */
export const CHANGES_MAIL = ['tidy', 'screen'] as const satisfies Needs;

/** The powers a credential holds: `null` for every one (the default), else exactly those listed. */
export type Powers = ReadonlySet<AgentPower> | null;

export const EVERY_POWER: Powers = null;

/** Who the words are about: the person reading them, or the person as others are told of them. */
export interface Addressed {
  readonly your: string;
  readonly youApprove: string;
}
export const TO_THE_PERSON: Addressed = { your: 'your', youApprove: 'you approve' };
/** To an agent refused. */
export const OF_THE_PERSON: Addressed = { your: 'the person’s', youApprove: 'the person approves' };
/** To the owner's script on REST. */
export const OF_THE_OWNER: Addressed = { your: 'their', youApprove: 'they approve' };

/**
 * Each power in words, as the console offers it and as an agent refused is told: `short` for a list, `what`
 * completes "It may …" / "has not allowed this agent to …", addressed to whoever reads it.
 */
export const POWER_WORDS: Readonly<
  Record<AgentPower, { readonly short: string; readonly what: (a: Addressed) => string }>
> = {
  tidy: {
    short: 'tidy',
    what: () =>
      'tidy mail: archive, trash, mark as spam, label and star messages, undo those changes, and run triage passes',
  },
  screen: {
    short: 'screen junk',
    what: () => 'screen junk into Screened, and rescue or report what is there',
  },
  draft: { short: 'drafts', what: (a) => `write drafts, and send them once ${a.youApprove} each one` },
  unsubscribe: {
    short: 'unsubscribe',
    what: (a) => `unsubscribe from mailing lists once ${a.youApprove} each one`,
  },
  setup: {
    short: 'settings',
    what: (a) => `add inboxes and change ${a.your} settings: VIPs, triage preferences, whether sending is on`,
  },
};

/** The powers any one of which `needs` asks for (none for reading). */
export function neededPowers(needs: Needs): readonly AgentPower[] {
  return needs === 'read' ? [] : typeof needs === 'string' ? [needs] : needs;
}

/** What every agent may do, in the same words. */
export const READING_WORDS =
  'list your inboxes, read, search and sync mail, and see your VIPs, settings and what agents did';

export function isAgentPower(s: string): s is AgentPower {
  return (AGENT_POWERS as readonly string[]).includes(s);
}

/** Whether `powers` covers what a tool or route needs. */
export function allows(powers: Powers, needs: Needs): boolean {
  if (needs === 'read' || powers === null) return true;
  return typeof needs === 'string' ? powers.has(needs) : needs.some((p) => powers.has(p));
}

/**
 * The powers a person chose: every power chosen is `null` (so powers added later are held too, as by a credential
 * made without a choice); otherwise the set. Names that are not powers are ignored.
 */
export function chosenPowers(names: Iterable<string>): Powers {
  const set = new Set<AgentPower>();
  for (const n of names) if (isAgentPower(n)) set.add(n);
  return set.size === AGENT_POWERS.length ? null : set;
}

/** As stored: `null` for every power, else the names in `AGENT_POWERS` order separated by spaces ('' for none). */
export function storedPowers(powers: Powers): string | null {
  return powers === null ? null : AGENT_POWERS.filter((p) => powers.has(p)).join(' ');
}

/**
 * A stored value read back. A name this version does not know (written by a newer one, then taken back) is dropped:
 * a credential never holds more than it was given.
 */
export function readPowers(stored: string | null): Powers {
  if (stored === null) return null;
  return new Set(stored.split(' ').filter(isAgentPower));
}

/** The powers as a list in `AGENT_POWERS` order (every one for `null`). */
export function powerList(powers: Powers): AgentPower[] {
  return AGENT_POWERS.filter((p) => allows(powers, p));
}
