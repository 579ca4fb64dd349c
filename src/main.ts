import { processEnv } from './config/index.ts';
import { runCli } from './transports/cli/cli.ts';

const stopSignal = new Promise<string>((resolve) => {
  for (const s of ['SIGTERM', 'SIGINT'] as const) process.once(s, () => resolve(s));
});

const code = await runCli(process.argv.slice(2), {
  env: processEnv(),
  cwd: process.cwd(),
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
  stopSignal,
});
process.exit(code);
