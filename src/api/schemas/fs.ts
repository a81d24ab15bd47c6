// The browser host's file system as the wire shows it (/browsers/{id}/fs/*). Paths are paths in the
// session's view of the host, always absolute.
import type { FromSchema } from 'json-schema-to-ts';
import { dateTime } from './common.js';

/** A file or directory as file_info and list_files report it (the hosted API's `FileInfo`). */
export const fileInfo = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'path', 'size_bytes', 'is_dir', 'mod_time', 'mode'],
  properties: {
    name: { type: 'string', description: 'The last element of `path`; `/` for the root' },
    path: { type: 'string' },
    size_bytes: { type: 'integer', description: '0 for a directory' },
    is_dir: { type: 'boolean' },
    mod_time: dateTime,
    mode: {
      type: 'string',
      description: "Type letters and permissions as Go's `os.FileMode.String()` prints them, e.g. `-rw-r--r--`, `drwxr-xr-x`, `Lrwxrwxrwx`",
    },
  },
} as const;
export type FileInfo = FromSchema<typeof fileInfo>;

/** What a watch reports: a move is a `RENAME` of the old path and a `CREATE` of the new one. */
export const fsEventType = { type: 'string', enum: ['CREATE', 'WRITE', 'DELETE', 'RENAME'] } as const;
export type FsEventType = FromSchema<typeof fsEventType>;

/** One change in a watched directory (the hosted API's watch event frame). */
export const fsEvent = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'path', 'name', 'is_dir'],
  properties: {
    type: fsEventType,
    path: { type: 'string' },
    name: { type: 'string', description: 'The last element of `path`' },
    is_dir: { type: 'boolean' },
  },
} as const;
export type FsEvent = FromSchema<typeof fsEvent>;

/** A started watch (POST /browsers/{id}/fs/watch). */
export const fsWatch = {
  type: 'object',
  additionalProperties: false,
  required: ['watch_id'],
  properties: { watch_id: { type: 'string' } },
} as const;
export type FsWatch = FromSchema<typeof fsWatch>;
