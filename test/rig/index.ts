/** Public surface of the real-server test rig. */
export { freePort } from './free-port.ts';
export {
  deathReason,
  killTracked,
  removeTempDir,
  terminate,
  track,
  trackTempDir,
  watchSpawnErrors,
} from './processes.ts';
export type { AfterKill } from './processes.ts';
export { makeScratchDir, releaseScratchDir, scratchRoot } from './scratch-dir.ts';
export { ensureSystemPackages, REQUIRED_SYSTEM_PACKAGES } from './system-deps.ts';
export type { SystemPackage } from './system-deps.ts';
export { startPgCluster } from './pg-cluster.ts';
export { createDatabaseOn } from './pg-database.ts';
export type { PgCluster } from './pg-cluster.ts';
export { freshPgDatabase } from './pg.ts';
export { dovecotAccount, startDovecot } from './dovecot.ts';
export type { Dovecot } from './dovecot.ts';
export { buildMessage, generateMessages, MESSAGE_KINDS } from './message-factory.ts';
export type {
  AttachmentSpec,
  Charset,
  GeneratedMessage,
  GenerateOptions,
  ListSpec,
  Mailbox,
  MessageKind,
  MessageSpec,
} from './message-factory.ts';
export { appendViaImap } from './append-via-imap.ts';
export type { AppendOptions } from './append-via-imap.ts';
export { modifiedUtf7, seedMaildir } from './seed-maildir.ts';
export type { SeedMessage, SeedOptions } from './seed-maildir.ts';
export { startSmtpSink } from './smtp-sink.ts';
export type { ReceivedMail, SmtpSink } from './smtp-sink.ts';
export { artifactPath, ARTIFACTS_DIR, launchBrowser } from './browser.ts';
