import type { SessionIndexEntry } from './session-index.js';

/** One row of `sessions --tree`: an entry and how deep it sits under its parents (0: a top-level session). */
export interface SessionTreeRow {
  entry: SessionIndexEntry;
  depth: number;
}

/**
 * The sessions as a tree: each session whose parent is not listed keeps its place in `entries`
 * (most recent first), and its child sessions follow it, in the order they started, each
 * followed by its own children. A cycle (only a corrupt index could hold one) is cut where a
 * session would appear a second time.
 */
export function sessionTree(entries: readonly SessionIndexEntry[]): SessionTreeRow[] {
  const ids = new Set(entries.map((e) => e.sessionId));
  const children = new Map<string, SessionIndexEntry[]>();
  for (const e of entries) {
    if (e.parentSessionId === undefined || !ids.has(e.parentSessionId)) continue;
    const list = children.get(e.parentSessionId) ?? [];
    list.push(e);
    children.set(e.parentSessionId, list);
  }
  for (const list of children.values()) list.sort((a, b) => (a.startedAt ?? '').localeCompare(b.startedAt ?? ''));
  const rows: SessionTreeRow[] = [];
  const seen = new Set<string>();
  const visit = (entry: SessionIndexEntry, depth: number): void => {
    if (seen.has(entry.sessionId)) return;
    seen.add(entry.sessionId);
    rows.push({ entry, depth });
    for (const child of children.get(entry.sessionId) ?? []) visit(child, depth + 1);
  };
  for (const e of entries) if (e.parentSessionId === undefined || !ids.has(e.parentSessionId)) visit(e, 0);
  return rows;
}
