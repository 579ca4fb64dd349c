import { describe, expect, it } from 'vitest';
import { isNotYetAvailable } from './wait-for-database.ts';
import { DatabaseDeadlineError } from './pg-deadline.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isNotYetAvailable', () => {
  it.each([
    ['nothing listening', withCode('ECONNREFUSED')],
    ['a name not yet in DNS', withCode('ENOTFOUND')],
    ['DNS not answering yet', withCode('EAI_AGAIN')],
    ['a reset', withCode('ECONNRESET')],
    ['the server starting up (57P03)', withCode('57P03')],
    ['no connection slot free (53300)', withCode('53300')],
    ['a connection exception (08006)', withCode('08006')],
    ['a connection closed before any answer', new Error('Connection terminated unexpectedly')],
    ['a statement unanswered within the deadline', new DatabaseDeadlineError(30_000)],
  ])('waits for %s', (_, e) => {
    expect(isNotYetAvailable(e)).toBe(true);
  });

  it.each([
    ['a wrong password (28P01)', withCode('28P01')],
    ['a role not allowed (28000)', withCode('28000')],
    ['a database that does not exist (3D000)', withCode('3D000')],
    ['any other error', new Error('something else')],
    ['a value that is not an error', 'ECONNREFUSED'],
  ])('does not wait for %s', (_, e) => {
    expect(isNotYetAvailable(e)).toBe(false);
  });
});
