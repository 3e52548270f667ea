import { describe, expect, it } from 'vitest';
import { acceptedMediaTypes } from './media-type.js';

describe('acceptedMediaTypes', () => {
  it("reads the contract's body media types by method and Hono route path", () => {
    expect(acceptedMediaTypes('POST', '/ask/:provider')).toEqual(['application/json']);
    expect(acceptedMediaTypes('post', '/consilium/deep/stream')).toEqual(['application/json']);
  });

  it('falls back to JSON for a route it does not know', () => {
    expect(acceptedMediaTypes('PUT', '/nowhere')).toEqual(['application/json']);
  });
});
