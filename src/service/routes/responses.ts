// The success answers a route declares in its schema (`response`): they document the wire in GET /openapi.json
// and do not change what is sent (the app writes bodies as handlers return them). Error answers are the same
// for every route and added to the document once (openapi.ts).

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Merged into the route's schema for GET /openapi.json only: what the route reads itself. */
    openapi?: object;
  }
}

/** `200` with a JSON body of `schema`. */
export const ok = <S extends object>(description: string, schema: S) => ({ 200: { description, ...schema } }) as const;

/** `201` with a JSON body of `schema`. */
export const created = <S extends object>(description: string, schema: S) => ({ 201: { description, ...schema } }) as const;

/** `204`, no body. */
export const noContent = (description: string) => ({ 204: { description, type: 'null' } }) as const;

/** `200` with no body (the handler sends nothing). */
export const done = (description: string) => ({ 200: { description, type: 'null' } }) as const;

/** `201` with no body. */
export const createdEmpty = (description: string) => ({ 201: { description, type: 'null' } }) as const;

/** The paging headers of an offset-paged list (see offset-paging.ts). */
export const pageHeaders = {
  'X-Has-More': { type: 'boolean', description: 'Whether another page follows' },
  'X-Next-Offset': { type: 'integer', description: 'The `offset` of the next page; 0 on the last' },
} as const;

/** `200` with one page of `item`s as a bare JSON array, and the paging headers. */
export const page = <S extends object>(description: string, item: S) =>
  ({ 200: { description, type: 'array', items: item, headers: pageHeaders } }) as const;

/** `200` with a body that is not JSON: a file, an image, a stream of server-sent events. */
export const content = (description: string, mediaType: string, schema: object = { type: 'string', format: 'binary' }) =>
  ({ 200: { description, content: { [mediaType]: { schema } } } }) as const;

/** `200` with server-sent events, each `data:` line one JSON `frame`. */
export const eventStream = (description: string, frame: object) =>
  content(`${description} (server-sent events; each \`data:\` line holds one JSON frame as described)`, 'text/event-stream', frame);

/** For the document only (route `config.openapi`): a request body that the route reads itself (multipart, raw bytes). */
export const documentedBody = (mediaType: string, schema: object, description: string) =>
  ({ openapi: { consumes: [mediaType], body: { description, ...schema } } }) as const;

/** For the document only: a POST that takes no body (anything sent is ignored). */
export const noBody = { openapi: { body: { type: 'object', description: 'No body: send nothing or `{}`' } } } as const;
