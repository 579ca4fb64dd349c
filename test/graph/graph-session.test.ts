import { describe } from 'vitest';
import { mailSessionContract } from '../../src/core/mail/mail-session.contract.ts';
import { mailWriterContract } from '../../src/core/mail/mail-writer.contract.ts';
import { graphHarness } from './graph-harness.ts';

/** The same contract Dovecot, the demo and Gmail pass, on the Graph adapter against our documented-behaviour stub. */
describe('Microsoft Graph (stub)', () => {
  mailSessionContract('Graph', () => graphHarness(), { reset: true, changeLog: true });
  mailWriterContract('Graph', () => graphHarness());
});
