/**
 * Mechanical compaction (the folder): pure, synchronous, run in a worker for big transcripts.
 * Older units are folded to per-role heads (tool results keep ~800 chars of fact-bearing head,
 * user prose 250, assistant prose 180; reasoning is dropped), the most recent units stay
 * verbatim, pinned summaries and in-transcript system messages are never touched, and an
 * assistant tool-call message is never separated from its tool results (units move whole).
 * An older user message's images are replaced by their placeholders, each marked
 * {@link IMAGE_FOLDED}, so the model still knows what it was shown. If folding is not enough to
 * reach `targetTokens`, the oldest folded units are removed whole and one marker message says
 * how many messages (and images) went.
 */
import { DEFAULT_DENSITIES, type DensityTable } from './density.js';
import { estimateMessagesTokens } from './estimate.js';
import { groupUnits, type TranscriptMessage, type TranscriptUnit } from './transcript.js';

/** What follows an image's placeholder in a folded user message, in place of the image. */
export const IMAGE_FOLDED = '(image removed by compaction)';

/** Characters kept at the head of a folded message, per role. */
export interface FoldHeads {
  /** Tool results; default 800. */
  tool: number;
  /** User prose; default 250. */
  user: number;
  /** Assistant prose; default 180. */
  assistant: number;
}

/** Default heads (control-plane contract §3). */
export const DEFAULT_FOLD_HEADS: Readonly<FoldHeads> = Object.freeze({ tool: 800, user: 250, assistant: 180 });

/** Options of {@link foldTranscript}. */
export interface FoldOptions {
  /** Most recent units kept verbatim; default 4. */
  keepRecentUnits?: number;
  /** Remove oldest folded units until the estimate is at most this; default: fold only. */
  targetTokens?: number;
  /**
   * Remove exactly this many of the oldest folded units instead (a stored compaction folded
   * again when its session is rebuilt: the same units go as went then); wins over `targetTokens`.
   */
  removeUnits?: number;
  heads?: FoldHeads;
  densities?: DensityTable;
}

/** What a fold did. */
export interface FoldResult {
  messages: TranscriptMessage[];
  beforeTokens: number;
  afterTokens: number;
  /** Messages removed whole (the marker message is not counted). */
  removedMessages: number;
  /** Units removed whole (what `removeUnits` repeats). */
  removedUnits: number;
  /** Messages shortened to their head. */
  foldedMessages: number;
  /** Images replaced by their placeholders or removed with their messages. */
  removedImages: number;
  /** False when nothing could be folded or removed (the `:no-op` case). */
  changed: boolean;
}

/**
 * The head of a text, preferring to end at a line break, followed by a marker naming what was
 * cut. Leading blank lines are skipped first: they carry no facts.
 */
export function headOf(text: string, max: number): string {
  const body = text.replace(/^\s*\n/, '');
  if (body.length <= max) return body;
  let cut = body.lastIndexOf('\n', max);
  if (cut < max / 2) cut = max;
  return `${body.slice(0, cut)}\n[… ${body.length - cut} chars folded by compaction]`;
}

function foldMessage(m: TranscriptMessage, heads: FoldHeads): TranscriptMessage {
  switch (m.role) {
    case 'system':
      return m;
    case 'user':
      if (m.pinned) return m;
      // An image is not folded to a head: it is replaced by its placeholder, which says so.
      return {
        role: 'user',
        text: [headOf(m.text, heads.user), ...(m.images ?? []).map((i) => `${i.placeholder} ${IMAGE_FOLDED}`)].join(
          '\n',
        ),
      };
    case 'tool':
      return { role: 'tool', toolCallId: m.toolCallId, content: headOf(m.content, heads.tool) };
    case 'assistant': {
      // Tool-call arguments stay whole: the pairing with results must still make sense.
      const out: TranscriptMessage = { role: 'assistant', text: headOf(m.text, heads.assistant) };
      if (m.toolCalls) out.toolCalls = m.toolCalls;
      return out;
    }
  }
}

function isProtected(messages: readonly TranscriptMessage[], u: TranscriptUnit): boolean {
  const first = messages[u.start] as TranscriptMessage;
  return first.role === 'system' || (first.role === 'user' && first.pinned === true);
}

/** Fold a transcript mechanically. Pure: the input is not modified. */
export function foldTranscript(messages: readonly TranscriptMessage[], options: FoldOptions = {}): FoldResult {
  const keep = options.keepRecentUnits ?? 4;
  const heads = options.heads ?? DEFAULT_FOLD_HEADS;
  const table = options.densities ?? DEFAULT_DENSITIES;
  const beforeTokens = estimateMessagesTokens(messages, table);
  const units = groupUnits(messages);
  const olderCount = Math.max(0, units.length - keep);

  // Fold every older, unprotected unit to its heads.
  const foldedUnits: TranscriptMessage[][] = [];
  let foldedMessages = 0;
  let foldedImages = 0;
  for (let k = 0; k < units.length; k++) {
    const u = units[k] as TranscriptUnit;
    const slice = messages.slice(u.start, u.end);
    if (k >= olderCount || isProtected(messages, u)) {
      foldedUnits.push(slice);
      continue;
    }
    const folded = slice.map((m) => foldMessage(m, heads));
    for (const m of slice) if (hasImages(m)) foldedImages += (m as { images: unknown[] }).images.length;
    for (let j = 0; j < slice.length; j++)
      if (messageText(folded[j]) !== messageText(slice[j]) || hasReasoning(slice[j]) || hasImages(slice[j]))
        foldedMessages++;
    foldedUnits.push(folded);
  }

  // Remove the oldest folded units while still above target.
  let removedMessages = 0;
  let imagesInRemoved = 0;
  const removed = new Set<number>();
  const { targetTokens, removeUnits } = options;
  if (targetTokens !== undefined || removeUnits !== undefined) {
    let total = 0;
    const unitTokens = foldedUnits.map((u) => estimateMessagesTokens(u, table));
    for (const t of unitTokens) total += t;
    const enough = (): boolean => (removeUnits !== undefined ? removed.size >= removeUnits : total <= targetTokens!);
    for (let k = 0; k < olderCount && !enough(); k++) {
      if (isProtected(messages, units[k] as TranscriptUnit)) continue;
      removed.add(k);
      total -= unitTokens[k] as number;
      removedMessages += (foldedUnits[k] as TranscriptMessage[]).length;
      for (let j = units[k]!.start; j < units[k]!.end; j++) {
        const m = messages[j]!;
        if (m.role === 'user') imagesInRemoved += m.images?.length ?? 0;
      }
    }
  }

  const out: TranscriptMessage[] = [];
  let markerPlaced = false;
  for (let k = 0; k < foldedUnits.length; k++) {
    if (removed.has(k)) {
      if (!markerPlaced) {
        const images = imagesInRemoved > 0 ? `, with ${imagesInRemoved} image${imagesInRemoved === 1 ? '' : 's'}` : '';
        out.push({
          role: 'user',
          text: `[minicode: ${removedMessages} earlier messages${images} were removed by compaction]`,
        });
        markerPlaced = true;
      }
      continue;
    }
    for (const m of foldedUnits[k] as TranscriptMessage[]) out.push(m);
  }
  const afterTokens = estimateMessagesTokens(out, table);
  // A removed unit's images were already counted when it was folded.
  return {
    messages: out,
    beforeTokens,
    afterTokens,
    removedMessages,
    removedUnits: removed.size,
    foldedMessages,
    removedImages: foldedImages,
    changed: foldedMessages > 0 || removedMessages > 0,
  };
}

function messageText(m: TranscriptMessage | undefined): string {
  if (!m) return '';
  return m.role === 'tool' ? m.content : m.text;
}

function hasImages(m: TranscriptMessage | undefined): boolean {
  return m?.role === 'user' && !m.pinned && (m.images?.length ?? 0) > 0;
}

function hasReasoning(m: TranscriptMessage | undefined): boolean {
  return m?.role === 'assistant' && m.reasoning !== undefined && m.reasoning.length > 0;
}
