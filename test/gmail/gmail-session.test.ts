import { describe } from 'vitest';
import { mailSessionContract } from '../../src/core/mail/mail-session.contract.ts';
import { mailWriterContract } from '../../src/core/mail/mail-writer.contract.ts';
import { gmailHarness } from './gmail-harness.ts';

/** The same contract Dovecot and the demo pass, on the Gmail adapter against the emulator and its stub. */
describe('Gmail (emulate 0.12.2 + stub)', () => {
  mailSessionContract('Gmail', () => gmailHarness(), { reset: true, changeLog: true });
  mailWriterContract('Gmail', () => gmailHarness());
});
