/**
 * Evidence a summary adds up (files changed, test runs, findings): each event updates the
 * aggregate the summary reads, so the summary of a long session needs no list of every item.
 * The recent lists beside them keep the latest entries only.
 */
import type { OutputEventOf } from '../events/index.js';
import { getKey, putKey, type StateWriter } from './writer.js';

/** Distinct paths in order of first change, each with its latest kind of change. */
export function onFilesChanged(w: StateWriter, e: OutputEventOf<'file.changed'>): void {
  const toolCallId = e.payload.toolCallId;
  for (const c of e.payload.changes) {
    const entry = toolCallId === undefined ? { ...c } : { ...c, toolCallId };
    const at = getKey(w.s.fileIndex, c.path);
    if (at !== undefined) {
      w.list('files')[at] = entry;
    } else {
      putKey(w.record('fileIndex'), c.path, w.s.files.length);
      w.list('files').push(entry);
    }
  }
}

export function onTest(w: StateWriter, e: OutputEventOf<'test.completed'>): void {
  const p = e.payload;
  const test: { command?: string; ok: boolean; passed?: number; failed?: number; skipped?: number } =
    p.command === undefined ? { ok: p.ok } : { command: p.command, ok: p.ok };
  if (p.passed !== undefined) test.passed = p.passed;
  if (p.failed !== undefined) test.failed = p.failed;
  if (p.skipped !== undefined) test.skipped = p.skipped;
  w.recent('tests', test);
  const t = { ...w.s.testTotals, runs: w.s.testTotals.runs + 1, ok: (w.s.testTotals.ok ?? true) && p.ok };
  // A count never reported stays absent (unknown), as in the events.
  if (p.passed !== undefined) t.passed = (t.passed ?? 0) + p.passed;
  if (p.failed !== undefined) t.failed = (t.failed ?? 0) + p.failed;
  if (p.skipped !== undefined) t.skipped = (t.skipped ?? 0) + p.skipped;
  w.s.testTotals = t;
}

export function onFinding(w: StateWriter, e: OutputEventOf<'finding.detected'>): void {
  const { category, severity, summary } = e.payload;
  w.recent('findings', { category, severity, summary });
  putKey(w.record('findingsBySeverity'), severity, (getKey(w.s.findingsBySeverity, severity) ?? 0) + 1);
}
