// The browser host's file system as the wire shows it (/browsers/{id}/fs/*). Paths are paths in the
// session's view of the host, always absolute.
import type { FromSchema } from 'json-schema-to-ts';
import { dateTime } from './common.js';

// What requests send.

const path = { type: 'string', minLength: 1, maxLength: 4096 } as const;
/** Octal permission bits, e.g. `644` or `0755`. */
export const MODE_PATTERN = '^[0-7]{3,4}$';
const mode = { type: 'string', pattern: MODE_PATTERN } as const;
/** A user or group name (as in /etc/passwd) or a numeric id. */
const principal = { type: 'string', minLength: 1, maxLength: 64, pattern: '^[^:\\s]+$' } as const;

/** `{path}`: the query of read_file, list_files, file_info, download_dir_zip; the body of the deletes. */
export const pathOnly = {
  type: 'object',
  additionalProperties: false,
  required: ['path'],
  properties: { path },
} as const;

/** `{path, mode?}`: the query of write_file, the body of create_directory. */
export const pathAndMode = {
  type: 'object',
  additionalProperties: false,
  required: ['path'],
  properties: { path, mode },
} as const;

export const fsMoveParams = {
  type: 'object',
  additionalProperties: false,
  required: ['src_path', 'dest_path'],
  properties: { src_path: path, dest_path: path },
} as const;

export const fsPermissionsParams = {
  type: 'object',
  additionalProperties: false,
  required: ['path', 'mode'],
  properties: { path, mode, owner: principal, group: principal },
} as const;

export const fsWatchParams = {
  type: 'object',
  additionalProperties: false,
  required: ['path'],
  properties: { path, recursive: { type: 'boolean' } },
} as const;

/** A file's bytes as write_file and the uploads take them (documentation only: those routes read their bodies themselves). */
export const fileBytes = { type: 'string', format: 'binary' } as const;

/** upload's multipart form (documentation only: the route reads the parts itself). */
export const fsUploadForm = {
  type: 'object',
  required: ['files'],
  properties: {
    files: {
      type: 'array',
      minItems: 1,
      description: 'Sent as the form fields `files[N][file]` and `files[N][dest_path]`, N = 0, 1, …; parent directories are created',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['file', 'dest_path'],
        properties: { file: fileBytes, dest_path: path },
      },
    },
  },
} as const;

/** upload_zip's multipart form (documentation only). */
export const fsUploadZipForm = {
  type: 'object',
  additionalProperties: false,
  required: ['zip_file', 'dest_path'],
  properties: {
    zip_file: { ...fileBytes, description: 'A zip archive' },
    dest_path: { ...path, description: 'The directory to extract into; created if missing' },
  },
} as const;

// What answers carry.

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
