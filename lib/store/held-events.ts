/**
 * The store side of a run whose store opens after its first line (`exec`: docs/startup.md
 * § What runs before the first line). The pipeline appends to it from the start; the durable
 * events it is given before the store is open are held, in order, and appended to the store
 * when it is attached, then every later one goes straight through. Events carry their own
 * sequence numbers, so the store keeps the same order and the same `seq` as if it had been
 * open from the start.
 *
 * This module loads without lmdb (only the store's types are imported): that is its point.
 */
import type { OutputEvent } from '../events/index.js';
import { EVENT_REGISTRY } from '../events/registry.js';
import type { EventStore } from './store.js';

/** What the run pipeline needs of a store. */
export type StoreSink = Pick<EventStore, 'append' | 'flushed'>;

/** A {@link StoreSink} that holds events until the store is open. */
export interface HeldEvents extends StoreSink {
  /** Append the held events to `store`, in order; later events go straight to it. */
  attach(store: EventStore): void;
  /**
   * The store could not be opened: the held events are dropped, later ones too, and `flushed`
   * resolves (nothing was stored; whoever opened the store reports its error).
   */
  abandon(): void;
}

/** A sink holding a run's events until {@link HeldEvents.attach} gives it the open store. */
export function holdEvents(): HeldEvents {
  let held: [OutputEvent, string | undefined][] | undefined = [];
  let store: EventStore | undefined;
  let abandoned = false;
  let settle: (() => void) | undefined;
  // Resolves when the store is attached or abandoned: what a `flushed` asked for meanwhile waits on.
  const decided = new Promise<void>((resolve) => {
    settle = resolve;
  });
  return {
    append(event, line) {
      if (store) return store.append(event, line);
      if (!EVENT_REGISTRY[event.type]?.durable) return false;
      held?.push([event, line]);
      return !abandoned;
    },
    async flushed(sessionId) {
      if (!store && !abandoned) await decided;
      await store?.flushed(sessionId);
    },
    attach(open) {
      if (store || abandoned) throw new Error('holdEvents: attach after attach or abandon');
      store = open;
      const events = held ?? [];
      held = undefined;
      for (const [event, line] of events) open.append(event, line);
      settle?.();
    },
    abandon() {
      if (store) throw new Error('holdEvents: abandon after attach');
      abandoned = true;
      held = undefined;
      settle?.();
    },
  };
}
