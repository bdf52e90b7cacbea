/**
 * "Did you mean": the known name closest to a mistyped one, for unknown commands (the CLI's and
 * chat's slash commands). Closeness is the optimal string alignment distance (an edit, an
 * insertion, a deletion or two swapped neighbours each cost one).
 */

/** The edit distance between `a` and `b`, adjacent swaps counted as one edit. */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++)
    rows.push(Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = rows[i]!;
      const above = rows[i - 1]!;
      row[j] = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1);
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known name closest to `typed` (ignoring case), or undefined when none is close: at most a
 * third of the typed length in edits (at least one), or a name the typed text is a prefix of.
 */
export function closestName(typed: string, known: readonly string[]): string | undefined {
  const lower = typed.toLowerCase();
  if (lower === '') return undefined;
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = name.toLowerCase().startsWith(lower) ? 0.5 : editDistance(lower, name.toLowerCase());
    if (distance <= Math.max(1, Math.floor(lower.length / 3)) && (!best || distance < best.distance))
      best = { name, distance };
  }
  return best?.name;
}
