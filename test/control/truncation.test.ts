/** The truncation layers (seed §6): each cap leaves a marker saying how much it cut. */
import { describe, expect, it } from 'vitest';
import { kernelTruncate } from '../../lib/control/truncation.js';
import { capHeadTail } from '../../lib/tools/truncate.js';

describe('the kernel cap', () => {
  it('keeps 4,096 tokens = 16,384 chars as 70% head and 30% tail with a middle marker', () => {
    const text = 'H'.repeat(20_000) + 'T'.repeat(20_000);
    const r = kernelTruncate(text);
    const [head, rest] = r.text.split('\n[minicode: ');
    expect(head).toBe('H'.repeat(Math.floor(16_384 * 0.7)));
    expect(rest?.endsWith('T'.repeat(16_384 - 11_468))).toBe(true);
    expect(r.removedChars).toBe(40_000 - 16_384);
    expect(r.text).toContain('23,616 chars (~5,904 tokens) cut from the middle by the 4,096-token tool result cap');
  });

  it('does not double-truncate: output within the cap passes through', () => {
    const text = 'x'.repeat(16_384);
    expect(kernelTruncate(text)).toEqual({ text, truncated: false, removedChars: 0 });
  });

  it('applies after a producer cap (20,000 chars for bash) and leaves its own marker', () => {
    const producer = capHeadTail('y'.repeat(600_000), 20_000);
    expect(producer.text).toContain('[... 580000 characters truncated by minicode ...]');
    const kernel = kernelTruncate(producer.text);
    expect(kernel.text).toContain('cut from the middle by the 4,096-token tool result cap');
    expect(kernel.text.length).toBeLessThan(16_384 + 200);
  });
});
