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
