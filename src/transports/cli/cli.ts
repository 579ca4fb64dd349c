import { parseArgs } from 'node:util';
import pkg from '../../../package.json' with { type: 'json' };
import { ConfigError } from '../../config/index.ts';
import { MigrationError } from '../../adapters/storage/index.ts';
import { EXIT, type CliIo } from './cli-io.ts';
import { accountCommand } from './account-command.ts';
import { afterRestoreCommand } from './after-restore-command.ts';
import { backupCommand } from './backup-command.ts';
import { copyFromSqliteCommand } from './copy-from-sqlite-command.ts';
import { copyToSqliteCommand } from './copy-to-sqlite-command.ts';
import { keyCommand } from './key-command.ts';
import { migrateCommand } from './migrate-command.ts';
import { serveCommand } from './serve-command.ts';

const HELP = `Usage: inbox-triage [command] [options]

Commands:
  serve             Run the service (default)
  migrate           Apply pending database migrations and exit
  account           Invite people, set plans, list accounts, reset a password (see: inbox-triage account)
  key               Rotate the encryption key, or adopt this instance's when the database's is lost (see: inbox-triage key)
  backup            Copy the SQLite database to a new file while the service runs (see: inbox-triage backup)
  after-restore     After restoring the database by other means than backup (see: inbox-triage after-restore -h)
  copy-from-sqlite  Move the service from SQLite to PostgreSQL (see: inbox-triage copy-from-sqlite -h)
  copy-to-sqlite    Move the service from PostgreSQL back to SQLite, one instance (see: inbox-triage copy-to-sqlite -h)

Options:
  -h, --help     Show this help
  -v, --version  Show the version

Configuration comes from environment variables; see the README.`;

type Command = (io: CliIo, args: string[]) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  serve: (io) => serveCommand(io),
  migrate: (io) => migrateCommand(io),
  account: (io, args) => accountCommand(io, args),
  key: (io, args) => keyCommand(io, args),
  backup: (io, args) => backupCommand(io, args),
  'after-restore': (io, args) => afterRestoreCommand(io, args),
  'copy-from-sqlite': (io, args) => copyFromSqliteCommand(io, args),
  'copy-to-sqlite': (io, args) => copyToSqliteCommand(io, args),
};

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  // A command owns everything after its name; top-level flags only come first.
  const [first, ...rest] = argv;
  const named = first !== undefined && !first.startsWith('-') ? first : undefined;
  if (named === undefined) {
    let values;
    try {
      values = parseArgs({
        args: [...argv],
        strict: true,
        options: { help: { type: 'boolean', short: 'h' }, version: { type: 'boolean', short: 'v' } },
      }).values;
    } catch (e) {
      io.err(`inbox-triage: ${(e as Error).message}`);
      return EXIT.usage;
    }
    if (values.help === true) {
      io.out(HELP);
      return EXIT.ok;
    }
    if (values.version === true) {
      io.out(pkg.version);
      return EXIT.ok;
    }
  }
  const name = named ?? 'serve';
  const command = COMMANDS[name];
  if (command === undefined) {
    io.err(`inbox-triage: unknown command "${name}" (try --help)`);
    return EXIT.usage;
  }
  try {
    return await command(io, named === undefined ? [] : rest);
  } catch (e) {
    if (e instanceof ConfigError) {
      io.err(`inbox-triage: invalid configuration: ${e.message}`);
      return EXIT.usage;
    }
    if (e instanceof MigrationError) {
      io.err(`inbox-triage: ${e.message}`);
      return EXIT.failure;
    }
    io.err(`inbox-triage: ${e instanceof Error ? e.message : String(e)}`);
    return EXIT.failure;
  }
}
