import { parseArgs } from 'node:util';
import { createApp, type App } from '../../app.ts';
import { readConfiguration } from '../../config/index.ts';
import { commandLogger, EXIT, type CliIo } from './cli-io.ts';
import { normaliseEmail } from '../../core/accounts/password-hasher.ts';

const USAGE = `Usage:
  inbox-triage account invite [--email <address>]      Print a one-time invitation link (valid 7 days)
  inbox-triage account set-plan <email> <trial|pro> [--trial-days <n>] [--payment ok|failed]
  inbox-triage account list                            List accounts with plan and trial end
  inbox-triage account reset-password <email>          Print a one-time link (valid 1 hour) that sets a new password
                                                       for a person who forgot theirs; it signs out every browser
  inbox-triage account two-step-off <email>            Turn off two-step sign-in for a person who lost their
                                                       authenticator app and recovery codes`;

/** Operator commands for accounts: invitations, plans (there is no billing provider), forgotten passwords. */
export async function accountCommand(io: CliIo, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { email: { type: 'string' }, 'trial-days': { type: 'string' }, payment: { type: 'string' } },
    });
  } catch (e) {
    io.err(`inbox-triage: ${(e as Error).message}`);
    return EXIT.usage;
  }
  const { config, secrets } = readConfiguration(io.env, io.cwd);
  const app = await createApp(config, secrets, { log: commandLogger(io), workJobs: false });
  try {
    switch (sub) {
      case 'invite':
        return await invite(app, io, parsed.values.email);
      case 'set-plan':
        return await setPlan(app, io, parsed.positionals, parsed.values['trial-days'], parsed.values.payment);
      case 'list':
        return await list(app, io);
      case 'reset-password':
        return await resetPassword(app, io, parsed.positionals);
      case 'two-step-off':
        return await twoStepOff(app, io, parsed.positionals);
      default:
        io.err(USAGE);
        return EXIT.usage;
    }
  } finally {
    await app.close();
  }
}

async function invite(app: App, io: CliIo, email: string | undefined): Promise<number> {
  const issued = await app.services.accounts.issueInvitation(email ?? null);
  if (!issued.ok) {
    io.err(`inbox-triage: not a valid email address: ${String(email)}`);
    return EXIT.usage;
  }
  io.out(`${app.config.baseUrl}/invite?token=${issued.value}`);
  return EXIT.ok;
}

async function setPlan(
  app: App,
  io: CliIo,
  positionals: string[],
  trialDays?: string,
  payment?: string,
): Promise<number> {
  const [email, plan] = positionals;
  const days = trialDays === undefined ? undefined : Number(trialDays);
  if (
    email === undefined ||
    (plan !== 'trial' && plan !== 'pro') ||
    (days !== undefined && !(Number.isInteger(days) && days >= 0))
  ) {
    io.err(USAGE);
    return EXIT.usage;
  }
  if (payment !== undefined && payment !== 'ok' && payment !== 'failed') {
    io.err('inbox-triage: --payment must be ok or failed');
    return EXIT.usage;
  }
  const account = await app.services.accounts.setPlan(email, plan, {
    ...(days !== undefined && { trialDays: days }),
    ...(payment !== undefined && { payment }),
  });
  if (account === undefined) {
    io.err(`inbox-triage: no account with email ${email}`);
    return EXIT.failure;
  }
  io.out(
    `${account.email}: ${account.plan}${account.trialEndsAt === null ? '' : ` until ${account.trialEndsAt.toISOString()}`}, payment ${account.paymentState}`,
  );
  return EXIT.ok;
}

async function list(app: App, io: CliIo): Promise<number> {
  for (const a of await app.stores.accounts.list()) {
    io.out(`${a.email}\t${a.plan}\t${a.trialEndsAt?.toISOString() ?? '-'}\t${a.paymentState}`);
  }
  return EXIT.ok;
}

async function resetPassword(app: App, io: CliIo, positionals: string[]): Promise<number> {
  const [email, ...extra] = positionals;
  if (email === undefined || extra.length > 0) {
    io.err(USAGE);
    return EXIT.usage;
  }
  const issued = await app.services.sessions.issuePasswordReset(email);
  if (!issued.ok) {
    io.err(`inbox-triage: no account with email ${email}`);
    return EXIT.failure;
  }
  io.out(`${app.config.baseUrl}/reset?token=${issued.value}`);
  return EXIT.ok;
}

/** The operator vouches for the person: their second factor goes, and signing in takes the password alone. */
async function twoStepOff(app: App, io: CliIo, positionals: string[]): Promise<number> {
  const [email, ...extra] = positionals;
  if (email === undefined || extra.length > 0) {
    io.err(USAGE);
    return EXIT.usage;
  }
  const account = await app.stores.accounts.findByEmail(normaliseEmail(email) ?? email.trim().toLowerCase());
  if (account === undefined) {
    io.err(`inbox-triage: no account with email ${email}`);
    return EXIT.failure;
  }
  const turnedOff = await app.services.secondFactor.disable(account.id, 'operator');
  io.out(
    turnedOff ? `two-step sign-in is off for ${account.email}` : `${account.email} had no two-step sign-in`,
  );
  return EXIT.ok;
}
