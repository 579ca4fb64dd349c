import { describe, expect, it } from 'vitest';
import { borrowsName, nameWords } from './borrowed-name.ts';

describe('a name that borrows a trusted sender’s (decision 0118)', () => {
  const trusted = 'Vera Important';

  it('reads the same through case, order, punctuation, accents and added words', () => {
    for (const name of [
      'Vera Important',
      'vera important',
      'VERA  IMPORTANT',
      'Important, Vera',
      '"Vera Important (CEO)"',
      'Vera Important via DocuSign',
      'Véra Impörtant',
      'Ｖｅｒａ Ｉｍｐｏｒｔａｎｔ',
    ])
      expect(borrowsName(name, trusted), name).toBe(true);
  });

  it('reads the same through look-alike letters: Cyrillic and Greek, l for I, 0 for o, rn for m', () => {
    for (const name of [
      'Vera lmportant',
      'Vera 1mportant',
      'V\u0435ra Imp\u043ertant', // Cyrillic е and о
      'V\u03b5ra Imp\u03bfrtant', // Greek ε and ο
      'Vera Imp0rtant',
      'Vera Irnportant',
    ])
      expect(borrowsName(name, trusted), name).toBe(true);
    expect(borrowsName('PayPaI', 'PayPal')).toBe(true);
  });

  it('is not another name, part of the trusted name, or a short one', () => {
    for (const name of ['Vera', 'Important', 'Vera Imported', 'Veronica Important', 'Mark Important', ''])
      expect(borrowsName(name, trusted), name).toBe(false);
    // A one-word trusted name matches that word alone: "PayPal Billing Team" is judged on its own.
    expect(borrowsName('PayPal Billing Team', 'PayPal')).toBe(false);
    expect(borrowsName('Al', 'Al')).toBe(false);
    expect(borrowsName('A. B.', 'A. B.')).toBe(false);
  });

  it('writes each word in the form it reads as', () => {
    expect(nameWords('Dr. Ïan O’Brien-Smith')).toEqual(['dr', 'lan', 'o', 'brlen', 'smlth']);
  });
});
