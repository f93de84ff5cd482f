// Text that reaches the ledger from outside (the issuer feed, an operator's file, a mint's own
// Token-2022 metadata) and is stored and shown to people: which characters it may not hold
// (docs/sources.md#text-fields). Pure: the feed and the imports refuse a field that holds one
// (the record is kept as a rejection, or the import names it); a mint's metadata, which anyone
// may write and which we cannot refuse (the mint is real), has them removed.
//
// - Control characters (C0, DEL, C1), NUL among them: PostgreSQL cannot store NUL in text at all,
//   so SQLite and PostgreSQL would disagree about the same row. Free text (an issuer's notes) may
//   hold tab and line breaks.
// - Bidirectional controls: they reorder what a person reads ("xDVN" shown as "NVDx").
// - Zero-width and other invisible characters: two names that look identical but differ.
// - Unpaired surrogates: not Unicode text; each engine would store a different replacement.

/** U+00AD, U+034F, U+061C, U+115F-U+1160, U+17B4-U+17B5, U+180B-U+180F, U+200B-U+200F, U+202A-U+202E, U+2060-U+206F, U+3164, U+FE00-U+FE0F, U+FEFF, U+FFA0, U+FFF9-U+FFFB. */
// biome-ignore lint/suspicious/noMisleadingCharacterClass: each invisible code point is listed on purpose, combining ones included.
const INVISIBLE = /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb]/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const CONTROL_EXCEPT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
const UNPAIRED = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export interface TextRules {
  /** Longest value, in UTF-16 code units (what JavaScript counts; every real value is far shorter). */
  max: number;
  /** Free text: tab, line feed and carriage return are allowed. */
  multiline?: boolean;
}

const codePoint = (c: string): string => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

/** Why `s` may not be stored as it is, naming the first offending character and where; null when it may. */
export function textProblem(s: string, rules: TextRules): string | null {
  if (s.length > rules.max) return `${s.length} characters, at most ${rules.max}`;
  const checks: [RegExp, string][] = [
    [rules.multiline ? CONTROL_EXCEPT_LINES : CONTROL, "a control character"],
    [INVISIBLE, "an invisible or bidirectional control character"],
    [UNPAIRED, "an unpaired surrogate (not Unicode text)"],
  ];
  for (const [pattern, what] of checks) {
    const m = pattern.exec(s);
    if (m) return `holds ${codePoint(m[0])}, ${what}, at position ${m.index + 1}`;
  }
  return null;
}

const ALL = (p: RegExp) => new RegExp(p.source, "g");
const STRIPPED = [ALL(CONTROL), ALL(INVISIBLE), ALL(UNPAIRED)];

/** `s` without the characters textProblem refuses, trimmed and cut to `max` without splitting a character. */
export function stripUnsafeText(s: string, max: number): string {
  let out = s;
  for (const p of STRIPPED) out = out.replace(p, "");
  out = out.trim();
  if (out.length <= max) return out;
  const cut = out.slice(0, max);
  // Cutting between the halves of a pair would leave an unpaired surrogate.
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}
