/**
 * Names, roles and hashes become ids and hash inputs, which see UTF-8: a lone surrogate encodes as
 * U+FFFD, so two different strings would give one id. Such strings, and control characters (which no
 * file or role name needs and which corrupt logs and DOT output), are refused wherever they enter.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why `text` is refused (a lone surrogate or a control character, with its position), or undefined when it is fine. */
export function unsafeTextReason(text: string): string | undefined {
  const surrogate = LONE_SURROGATE.exec(text);
  if (surrogate) return `contains a lone surrogate (${codePoint(surrogate[0])}) at index ${surrogate.index}, which is not valid Unicode`;
  const control = CONTROL.exec(text);
  if (control) return `contains the control character ${codePoint(control[0])} at index ${control.index}`;
  return undefined;
}

const codePoint = (char: string) => `U+${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;

/**
 * The most bytes of UTF-8 a name may take: an operation's name, version and roles, an artifact type, a
 * pipeline, a composite's names, a dataset's namespace, name and version, a job's namespace and name, a
 * column. Names are keys of indexes, and PostgreSQL keeps a b-tree entry up to 2,704 bytes; the longest keys
 * hold three names (a pipeline's flow: the pipeline and two roles; a column's search key: namespace, dataset
 * and field). SQLite has no such bound, but the same names are refused there, so what one database takes the
 * other takes too. An output's original name (a file's path) is free text, not a name: no index keys it whole.
 */
export const MAX_NAME_BYTES = 800;

/** Why a name is too long, or undefined when it is not. */
export function nameLengthReason(name: string): string | undefined {
  // A UTF-16 code unit is at most 3 bytes of UTF-8 (a surrogate pair, two units, is 4): most names need no count.
  if (name.length * 3 <= MAX_NAME_BYTES) return undefined;
  const bytes = Buffer.byteLength(name, "utf8");
  return bytes > MAX_NAME_BYTES ? `is ${bytes} bytes long in UTF-8; a name may take at most ${MAX_NAME_BYTES}` : undefined;
}

/** Why a name is refused (unsafe text, or too long), or undefined when it is fine. */
export function unsafeNameReason(name: string): string | undefined {
  return unsafeTextReason(name) ?? nameLengthReason(name);
}

/** What a registration refuses in a name (an operation's, a composite's), as the rule it breaks and why. */
export function brokenNameRule(name: string): { rule: "INVALID_CHARACTERS" | "NAME_TOO_LONG"; reason: string } | undefined {
  const unsafe = unsafeTextReason(name);
  if (unsafe) return { rule: "INVALID_CHARACTERS", reason: unsafe };
  const tooLong = nameLengthReason(name);
  return tooLong ? { rule: "NAME_TOO_LONG", reason: tooLong } : undefined;
}
