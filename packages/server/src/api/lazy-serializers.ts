import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type BuildSerializer = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']
>;

/**
 * Response serializers built on a route's first response instead of at start-up. Fastify compiles one
 * fast-json-stringify serializer per route and status when the app becomes ready (each validated against the JSON
 * Schema meta-schema first): ~0.85 s of a ~3 s start on this 2-core machine, for ~100 routes most processes never
 * answer. A route's first answer pays its own build instead (a few milliseconds); the schemas themselves are still
 * checked at start-up by the OpenAPI document and its test.
 */
export const lazySerializers: BuildSerializer = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  return (route) => {
    let serialize: ((data: unknown) => string) | null = null;
    return (data: unknown) => {
      serialize ??= compile(route) as (data: unknown) => string;
      return serialize(data);
    };
  };
};
