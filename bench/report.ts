import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';

export function machine(): string {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  return `${String(cpus().length)} × ${cpu}, ${String(Math.round(totalmem() / 2 ** 30))} GiB, Node ${process.version}`;
}

/** Replaces the block between `<!-- bench:NAME:start -->` and `<!-- bench:NAME:end -->` in docs/benchmarks.md. */
export function writeSection(path: string, name: string, markdown: string): void {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const doc = readFileSync(path, 'utf8');
  const a = doc.indexOf(start);
  const b = doc.indexOf(end);
  if (a < 0 || b < a) throw new Error(`docs/benchmarks.md has no ${name} markers`);
  writeFileSync(path, `${doc.slice(0, a + start.length)}\n${markdown.trim()}\n${doc.slice(b)}`);
}
