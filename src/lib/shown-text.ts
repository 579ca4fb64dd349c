/**
 * Characters that change how the text around them is shown — what a name or a label the person reads may not hold
 * (decisions 0103, 0106).
 */

/** Bidirectional embeddings, overrides and isolates (not the marks LRM, RLM and ALM, which some names need). */
export const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;

/** Control characters (C0, DEL, C1: a line break among them) and bidirectional controls, as a class's contents. */
const UNFIT = '\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069';

/** A character a name shown on one line may not hold. */
export const UNFIT_IN_A_NAME = new RegExp(`[${UNFIT}]`);

/** A whole name of fit characters (for a schema's `pattern`, which clients read). */
export const FIT_NAME = new RegExp(`^[^${UNFIT}]+$`);

/**
 * Characters that show nothing where text is read: zero-width spaces and joiners, direction marks and controls, word
 * joiner and invisible operators, deprecated format characters, soft hyphen, combining grapheme joiner, the Hangul
 * fillers, the Mongolian vowel separator and free variation selectors, interlinear annotation marks, variation
 * selectors (U+FE00–FE0F, U+E0100–E01EF) and tag characters (U+E0000–E007F) — what sync strips from a sender's text
 * (`core/messages/untrusted-content.ts`), and the combining grapheme joiner. Each has a use alone — a joiner in an
 * emoji or in Persian, a direction mark in Hebrew, a selector after an emoji or an ideograph, a soft hyphen in a long
 * word — but a run of them, or tags outside a flag, is a message no reader sees (decision 0112).
 */
const INVISIBLE =
  '\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0\\ufff9-\\ufffb\\u{e0000}-\\u{e007f}\\u{e0100}-\\u{e01ef}';
const INVISIBLE_CHAR = new RegExp(`[${INVISIBLE}]`, 'gu');
const INVISIBLE_RUN = new RegExp(`[${INVISIBLE}]{2,}`, 'u');
const TAG = /[\u{e0000}-\u{e007f}]/u;
/**
 * What emoji are made of, and may stay (UTS #51): a subdivision flag's tags, and a pictograph (or a keycap's digit)
 * with its skin tone, its text or emoji style, and the joiner to the next pictograph. Each is read as one visible mark.
 */
const EMOJI_SEQUENCES =
  /\u{1f3f4}[\u{e0020}-\u{e007e}]{1,30}\u{e007f}|[\p{Extended_Pictographic}#*0-9][\u{1f3fb}-\u{1f3ff}]?[\ufe0e\ufe0f]?(?:\u200d(?=\p{Extended_Pictographic}))?/gu;

/**
 * Why a text meant for someone to read and approve carries characters no reader sees, or undefined: tag characters
 * outside a flag, or two or more invisible characters in a row.
 */
export function hiddenCarrier(text: string): string | undefined {
  const rest = text.replace(EMOJI_SEQUENCES, 'x');
  if (TAG.test(rest)) return 'Unicode tag characters, which no reader sees';
  const run = INVISIBLE_RUN.exec(rest);
  if (run !== null) {
    const first = run[0].codePointAt(0) ?? 0;
    const codes = Array.from(run[0]).length;
    return `${String(codes)} characters in a row that no reader sees (the first U+${first.toString(16).toUpperCase().padStart(4, '0')})`;
  }
  return undefined;
}

/** How many characters in the text show nothing (emoji sequences apart), for a person approving it to be told. */
export function invisibleCount(text: string): number {
  return text.replace(EMOJI_SEQUENCES, 'x').match(INVISIBLE_CHAR)?.length ?? 0;
}
