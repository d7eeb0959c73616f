/**
 * Hand-written types of endpoints that the server does not document yet, taken from the spec, in the shape of the
 * generated `paths` (see `generated/openapi.ts`). `Paths` in `types.ts` lets a generated path replace a pending one
 * of the same name, and the drift test fails once the server documents a path listed here, so that it is deleted.
 *
 * Empty now: since the video routes landed, every endpoint of the spec is generated from the server's schemas.
 * To add one: `export interface PendingPaths { '/v1/…': { post: { parameters: …; requestBody: …; responses: … } } }`
 * and list the path in `PENDING_PATHS`.
 */
export type PendingPaths = Record<never, never>;

/** The paths of `PendingPaths`, at run time. */
export const PENDING_PATHS = [] as const satisfies readonly (keyof PendingPaths)[];
