import { describe, expect, it } from 'vitest';
import { createEnveloper } from '../../lib/events/enveloper.js';
import { PAYLOAD_EXAMPLES } from '../../lib/events/examples.js';
import type { EventDraft, OutputEvent } from '../../lib/events/index.js';
import { fromStored, toStored } from '../../lib/store/stored-event.js';

const wrapAll = (): OutputEvent[] => {
  const enveloper = createEnveloper({ sessionId: 'ses_0mx3dfuzk_9ecda250', clock: () => 1_700_000_000_123 });
  return Object.entries(PAYLOAD_EXAMPLES).map(([type, payload], i) =>
    enveloper.wrap({ type, payload, ...(i % 3 === 0 ? { turnId: 't1', stepId: 's1' } : {}), ...(i % 5 === 0 ? { correlationId: 'call_1', fidelity: 'native' } : {}) } as EventDraft),
  );
};

describe('the stored form of an event', () => {
  it('leaves out the fields the key and the schema name determine, and reads back byte for byte', () => {
    for (const event of wrapAll()) {
      const stored = toStored(event);
      expect(Object.keys(stored)).not.toContain('schema');
      expect(Object.keys(stored)).not.toContain('eventId');
      expect(Object.keys(stored)).not.toContain('seq');
      expect(Object.keys(stored)).not.toContain('sessionId');
      const back = fromStored(event.sessionId, event.seq, stored);
      expect(JSON.stringify(back)).toBe(JSON.stringify(event));
    }
  });

  it('stores an event whole when its id does not follow from its key, and reads whole records as they are', () => {
    const [event] = wrapAll() as [OutputEvent];
    const foreign = { ...event, eventId: 'imported-42' };
    expect(toStored(foreign)).toBe(foreign);
    expect(fromStored(event.sessionId, event.seq, foreign)).toBe(foreign);
    // A record an older build wrote whole.
    expect(JSON.stringify(fromStored(event.sessionId, event.seq, event))).toBe(JSON.stringify(event));
  });
});
