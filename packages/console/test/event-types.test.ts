import { describe, expect, it } from 'vitest';
import { EVENT_TYPES as SERVICE_EVENT_TYPES } from '../../server/src/domain/event-types.ts';
import { EVENT_TYPES } from '../web/types.ts';

describe('the console', () => {
  // the Webhooks pages offer these as subscriptions and test events; the review events were once missing here
  it('offers every event type the service sends', () => {
    expect([...EVENT_TYPES].sort()).toEqual([...SERVICE_EVENT_TYPES].sort());
  });
});
