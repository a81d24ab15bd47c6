// Path and query schemas many resource groups share, so a resource's id or name is checked the same way
// everywhere. A route's own fields stay beside its handler.
export { namedListQuery } from '../../api/schemas/common.js';

const key = { type: 'string', minLength: 1, maxLength: 255 } as const;

/** `/resource/{id_or_name}`: an id, or a name within the caller's project. */
export const idOrNameParams = { type: 'object', required: ['id_or_name'], properties: { id_or_name: key } } as const;
export type IdOrNameParams = { id_or_name: string };

/** `/resource/{id}`: addressed by id only. */
export const idParams = { type: 'object', required: ['id'], properties: { id: key } } as const;
