import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeBody } from './fast-path.ts';

// The answer's pieces are encoded into a scratch buffer kept between answers and copied out at their size: the bytes
// must be the pieces' UTF-8, whatever came before, for any text (lone surrogates included) and any size.
describe('encodeBody', () => {
  const text = fc.string({ unit: 'binary', maxLength: 300 });
  // A few pieces of any text, sometimes repeated into answers larger than the scratch buffer (1 MiB of room).
  const answer = fc.tuple(fc.array(text, { maxLength: 6 }), fc.constantFrom(1, 1, 1, 50, 400, 1300));

  it('gives the UTF-8 of the joined pieces, answer after answer', () => {
    fc.assert(
      fc.property(fc.array(answer, { minLength: 1, maxLength: 8 }), (answers) => {
        for (const [pieces, times] of answers) {
          const body = Array.from({ length: times }, () => pieces).flat();
          const bytes = encodeBody(body);
          expect(bytes.equals(Buffer.from(body.join(''), 'utf8'))).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('does not share its bytes with the next answer', () => {
    const first = encodeBody(['{"a":"', 'x'.repeat(5000), '"}']);
    const copy = Buffer.from(first);
    encodeBody(['{"b":"', 'y'.repeat(5000), '"}']);
    expect(first.equals(copy)).toBe(true);
  });
});
