/** Regular expressions built from text. */

/** `text` as a pattern that matches itself: every character RegExp treats specially is escaped. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
