/**
 * Ctrl+R: reverse incremental search of the prompt history, pure. Typing narrows the query and
 * jumps to the newest prompt containing it (ignoring case); Ctrl+R again goes to the next older
 * one; the app accepts the match into the editor or cancels back to what was there.
 */

/** A search in progress. */
export interface HistorySearch {
  readonly query: string;
  /** Index in the history of the prompt shown; undefined when nothing matches. */
  readonly match: number | undefined;
}

/** The newest entry before index `before` that contains `query` (any entry for an empty query). */
export function findOlder(history: readonly string[], query: string, before: number): number | undefined {
  const q = query.toLowerCase();
  for (let i = Math.min(before, history.length) - 1; i >= 0; i--) if (history[i]!.toLowerCase().includes(q)) return i;
  return undefined;
}

/** Start a search: the newest entry is shown. */
export function startSearch(history: readonly string[]): HistorySearch {
  return { query: '', match: findOlder(history, '', history.length) };
}

/** What a key does to the search. */
export type SearchKey = { kind: 'type'; text: string } | { kind: 'backspace' } | { kind: 'older' };

/** Apply one key. */
export function searchKey(search: HistorySearch, history: readonly string[], key: SearchKey): HistorySearch {
  switch (key.kind) {
    case 'type': {
      const query = search.query + key.text;
      // Keep the current match while it still contains the longer query, as shells do.
      const current =
        search.match !== undefined && history[search.match]!.toLowerCase().includes(query.toLowerCase())
          ? search.match
          : undefined;
      return { query, match: current ?? findOlder(history, query, history.length) };
    }
    case 'backspace': {
      const query = search.query.slice(0, -1);
      return { query, match: findOlder(history, query, history.length) };
    }
    case 'older': {
      const older = findOlder(history, search.query, search.match ?? history.length);
      return { query: search.query, match: older ?? search.match };
    }
  }
}

/** The prompt prefix that says a search is on, with its query and whether it failed. */
export function searchPrompt(search: HistorySearch): string {
  return `${search.match === undefined ? 'failing ' : ''}search '${search.query}': `;
}
