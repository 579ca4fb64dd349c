import { adoptKey } from '../../app.ts';
import { readConfiguration } from '../../config/index.ts';
import { EXIT, type CliIo } from './cli-io.ts';

const USAGE = `Usage:
  inbox-triage key adopt    Make this instance's key (ENCRYPTION_KEY, or DATA_DIR/encryption.key) the database's key,
                            when the key the database was set up with is lost for good. Mail credentials stored
                            under the old key cannot be read: each inbox asks to be reconnected.`;

/** Operator commands for the encryption key (decision 0042). */
export async function keyCommand(io: CliIo, args: string[]): Promise<number> {
  if (args.length !== 1 || args[0] !== 'adopt') {
    io.err(USAGE);
    return EXIT.usage;
  }
  const { config, secrets } = readConfiguration(io.env, io.cwd);
  await adoptKey(config, secrets);
  io.out(
    "This instance's key is now the database's key. Start every instance with it; reconnect each inbox whose " +
      'credentials were stored under the old key.',
  );
  return EXIT.ok;
}
