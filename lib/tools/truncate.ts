/**
 * Producer-side truncation: keep 70% of the budget from the head and 30% from the tail, with a
 * marker in between that says how much was dropped (every truncation leaves a marker).
 */
export function capHeadTail(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  const head = Math.floor(maxChars * 0.7);
  const tail = maxChars - head;
  const dropped = text.length - head - tail;
  return {
    text: `${text.slice(0, head)}\n[... ${dropped} characters truncated by minicode ...]\n${text.slice(text.length - tail)}`,
    truncated: true,
  };
}

/**
 * A bounded collector for streamed output: it never holds more than about `maxChars` plus one
 * chunk, yet its result equals `capHeadTail` of the whole stream. The head fills first; after
 * that only a tail window is kept (trimmed when it doubles, so trimming stays linear).
 */
export function createBoundedCollector(maxChars: number) {
  const headMax = Math.floor(maxChars * 0.7);
  const tailMax = maxChars - headMax;
  const head: string[] = [];
  let headLen = 0;
  let tail = '';
  let total = 0;
  return {
    push(chunk: string): void {
      total += chunk.length;
      if (headLen < headMax) {
        const take = chunk.slice(0, headMax - headLen);
        head.push(take);
        headLen += take.length;
        chunk = chunk.slice(take.length);
        if (chunk.length === 0) return;
      }
      tail += chunk;
      if (tail.length > tailMax * 2) tail = tail.slice(tail.length - tailMax);
    },
    /** The collected text, head + marker + tail when over the cap. */
    result(): { text: string; truncated: boolean; totalChars: number } {
      const h = head.join('');
      if (total <= maxChars) return { text: h + tail, truncated: false, totalChars: total };
      const t = tail.slice(Math.max(0, tail.length - tailMax));
      const dropped = total - h.length - t.length;
      return {
        text: `${h}\n[... ${dropped} characters truncated by minicode ...]\n${t}`,
        truncated: true,
        totalChars: total,
      };
    },
  };
}
