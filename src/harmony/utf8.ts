/** Result of checking bytes as UTF-8 with Rust `from_utf8` semantics (harmony-spec §4.3). */
export interface Utf8Check {
  /** Bytes [0, validUpTo) are valid UTF-8. */
  validUpTo: number;
  /** Length of the definitely invalid sequence at validUpTo; null = incomplete at the end; undefined = all valid. */
  errorLen?: number | null;
}

const isContinuation = (byte: number | undefined): boolean => byte !== undefined && byte >= 0x80 && byte <= 0xbf;

export function checkUtf8(bytes: ArrayLike<number>): Utf8Check {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i += 1;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b === 0xe0) (need = 2), (lo = 0xa0);
    else if ((b >= 0xe1 && b <= 0xec) || b === 0xee || b === 0xef) need = 2;
    else if (b === 0xed) (need = 2), (hi = 0x9f);
    else if (b === 0xf0) (need = 3), (lo = 0x90);
    else if (b >= 0xf1 && b <= 0xf3) need = 3;
    else if (b === 0xf4) (need = 3), (hi = 0x8f);
    else return { validUpTo: i, errorLen: 1 };
    if (i + 1 >= n) return { validUpTo: i, errorLen: null };
    const second = bytes[i + 1]!;
    if (second < lo || second > hi) return { validUpTo: i, errorLen: 1 };
    if (need >= 2) {
      if (i + 2 >= n) return { validUpTo: i, errorLen: null };
      if (!isContinuation(bytes[i + 2])) return { validUpTo: i, errorLen: 2 };
    }
    if (need === 3) {
      if (i + 3 >= n) return { validUpTo: i, errorLen: null };
      if (!isContinuation(bytes[i + 3])) return { validUpTo: i, errorLen: 3 };
    }
    i += need + 1;
  }
  return { validUpTo: n };
}
