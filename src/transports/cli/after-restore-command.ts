import { existsSync } from 'node:fs';
import { afterRestore } from '../../app.ts';
import { restoredWords } from '../../core/settings/restored-copy.ts';
import { readConfiguration } from '../../config/index.ts';
import { loadConfig } from '../../config/load-config.ts';
import { EXIT, type CliIo } from './cli-io.ts';

const USAGE = `Usage:
  inbox-triage after-restore [<time the copy was made>]
      Run once after restoring the database from a copy made by other means than \`inbox-triage backup\` (pg_dump,
      a snapshot), before the service takes requests. Sends and unsubscribe requests still waiting in the copy are
      marked unknown (they may have gone out since), browser sessions and agents' sign-ins end, single-use links are
      withdrawn, and people are told on their Settings page to repeat what they changed since. The time (ISO 8601,
      e.g. 2026-11-30T02:00:00Z) is shown to them. A copy made by \`inbox-triage backup\` needs nothing: the service
      does this when it starts on one.`;

/** Takes up a database restored from a copy (decision 0137). */
export async function afterRestoreCommand(io: CliIo, args: string[]): Promise<number> {
  const [when, ...extra] = args;
  if (extra.length > 0 || when?.startsWith('-') === true) {
    io.err(USAGE);
    return EXIT.usage;
  }
  const madeAt = when === undefined ? null : new Date(when);
  if (madeAt !== null && (Number.isNaN(madeAt.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(when ?? ''))) {
    io.err(
      `inbox-triage: "${String(when).slice(0, 40)}" is not a time such as 2026-11-30T02:00:00Z\n${USAGE}`,
    );
    return EXIT.usage;
  }
  if (madeAt !== null && madeAt.getTime() > Date.now()) {
    io.err('inbox-triage: the time the copy was made is in the future');
    return EXIT.usage;
  }
  // Settings first: reading the key would make a key file in a DATA_DIR that holds no database.
  const settings = loadConfig(io.env, io.cwd).config;
  if (settings.database.kind === 'sqlite' && !existsSync(settings.database.path)) {
    io.err(`inbox-triage: no database at ${settings.database.path} (is DATA_DIR right?)`);
    return EXIT.failure;
  }
  const { config, secrets } = readConfiguration(io.env, io.cwd);
  const taken = await afterRestore(config, secrets, madeAt);
  io.out(
    taken === undefined
      ? 'An instance starting at the same moment took the restored copy up first; see its log.'
      : `Done: ${restoredWords(taken)}.`,
  );
  return EXIT.ok;
}
