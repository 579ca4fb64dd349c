/** Public surface of the real-server test rig: what tests and benchmarks import from it. */
export { freePort } from './free-port.ts';
export { freshPgDatabase } from './pg.ts';
export { startDovecot } from './dovecot.ts';
export type { Dovecot } from './dovecot.ts';
export { buildMessage, generateMessages, MESSAGE_KINDS } from './message-factory.ts';
export type { GeneratedMessage } from './message-factory.ts';
export { appendViaImap } from './append-via-imap.ts';
export { seedMaildir } from './seed-maildir.ts';
export { startSmtpSink } from './smtp-sink.ts';
export type { SmtpSink } from './smtp-sink.ts';
export { artifactPath, launchBrowser } from './browser.ts';
