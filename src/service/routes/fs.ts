// /browsers/{id}/fs/*: the browser host's file system as the hosted API exposes it, confined to the
// session's host view. Every client path goes through the view's resolver, for reads and writes alike.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { chmod, chown, lstat, mkdir, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import type { ServiceContext } from '../context.js';
import { conflict, invalidField } from '../errors.js';
import {
  MODE_PATTERN,
  cleanViewPath,
  fileInfo,
  mapFsErrors,
  notRegularError,
  openForRead,
  parseMode,
  resolveEntry,
  writeError,
  writeFileFrom,
} from '../host/fs-ops.js';
import { lookupId } from '../host/fs-owner.js';
import { receiveUploads, receiveZipUpload } from '../host/fs-upload.js';
import { findWatch, startWatch, stopWatch } from '../host/fs-watch.js';
import type { LiveSession } from '../host/sessions.js';
import { zipDirectory } from '../host/zip.js';
import { openSse } from '../sse.js';
import { liveSession, sessionParams } from './lookup.js';

const path = { type: 'string', minLength: 1, maxLength: 4096 } as const;
const mode = { type: 'string', pattern: MODE_PATTERN } as const;
/** A user or group name (as in /etc/passwd) or a numeric id. */
const principal = { type: 'string', minLength: 1, maxLength: 64, pattern: '^[^:\\s]+$' } as const;

/** `{path}`: the query of read_file, list_files, file_info, download_dir_zip; the body of the deletes. */
const pathOnly = {
  type: 'object',
  additionalProperties: false,
  required: ['path'],
  properties: { path },
} as const;

/** `{path, mode?}`: the query of write_file, the body of create_directory. */
const pathAndMode = {
  type: 'object',
  additionalProperties: false,
  required: ['path'],
  properties: { path, mode },
} as const;

const moveBody = {
  type: 'object',
  additionalProperties: false,
  required: ['src_path', 'dest_path'],
  properties: { src_path: path, dest_path: path },
} as const;

const permissionsBody = {
  type: 'object',
  additionalProperties: false,
  required: ['path', 'mode'],
  properties: { path, mode, owner: principal, group: principal },
} as const;

const watchBody = {
  type: 'object',
  additionalProperties: false,
  required: ['path'],
  properties: { path, recursive: { type: 'boolean' } },
} as const;

const watchParams = {
  type: 'object',
  required: ['id', 'watch_id'],
  properties: { ...sessionParams.properties, watch_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

type Params = { id: string };
type WatchParams = Params & { watch_id: string };
type PathArgs = { path: string };
type ModeArgs = PathArgs & { mode?: string };

const QUERY_PATH = 'querystring.path';
const BODY_PATH = 'body.path';

/** A client path → the host path it stands for, following symlinks (which must stay in the view). */
function resolveIn(session: LiveSession, clientPath: string, field: string): Promise<string> {
  return mapFsErrors(field, clientPath, () => session.view.resolve(clientPath, field));
}

/** A client path → the host path of the entry itself; a symlink at the leaf is not followed. */
function resolveEntryIn(session: LiveSession, clientPath: string, field: string): Promise<string> {
  return mapFsErrors(field, clientPath, () => resolveEntry(session.view, clientPath, field));
}

async function directoryAt(host: string, clientPath: string, field: string): Promise<void> {
  const st = await mapFsErrors(field, clientPath, () => stat(host));
  if (!st.isDirectory()) throw invalidField(field, `'${clientPath}' is not a directory`);
}

/**
 * Uploads stream their bodies, so an error can be answered before the client has sent everything.
 * Like Go's net/http, such a connection is then closed rather than kept: the unread rest of the body
 * would otherwise sit in it (and keep shutdown waiting for a request that never completes).
 */
async function closeIfBodyUnread(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (!req.raw.complete) reply.header('connection', 'close');
  return payload;
}

export function registerFsRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const live = (req: FastifyRequest<{ Params: Params }>) => liveSession(ctx.browsers, ctx.sessions, req, req.params.id);

  // write_file takes the raw body whatever its content type, unparsed, so it streams to disk with no
  // size limit. Its own encapsulated scope keeps that catch-all parser away from every other route.
  void app.register(async (raw) => {
    raw.addHook('onSend', closeIfBodyUnread);
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (_req, _payload, done) => done(null));

    raw.put<{ Params: Params; Querystring: ModeArgs }>(
      '/browsers/:id/fs/write_file',
      { schema: { params: sessionParams, querystring: pathAndMode } },
      async (req, reply) => {
        const session = live(req);
        const { path: clientPath } = req.query;
        const host = await resolveIn(session, clientPath, QUERY_PATH);
        const explicit = req.query.mode === undefined ? undefined : parseMode(req.query.mode, 0o644);
        await writeFileFrom(req.raw, host, { mode: explicit, createMode: 0o644 }).catch((err) =>
          Promise.reject(writeError(err, QUERY_PATH, clientPath)),
        );
        return reply.code(201).send();
      },
    );
  });

  void app.register(async (scope) => {
    // Scoped here so the multipart parser serves only fs uploads. Files may be as large as the disk.
    await scope.register(multipart, { limits: { fileSize: Infinity, fieldSize: 64 * 1024, parts: 1000 } });
    scope.addHook('onSend', closeIfBodyUnread);

    scope.get<{ Params: Params; Querystring: PathArgs }>(
      '/browsers/:id/fs/read_file',
      { schema: { params: sessionParams, querystring: pathOnly } },
      async (req, reply) => {
        const session = live(req);
        const host = await resolveIn(session, req.query.path, QUERY_PATH);
        const { stream, stats } = await openForRead(host).catch((err) =>
          Promise.reject(notRegularError(err, QUERY_PATH, req.query.path)),
        );
        reply.type('application/octet-stream').header('content-length', stats.size);
        return reply.send(stream);
      },
    );

    scope.get<{ Params: Params; Querystring: PathArgs }>(
      '/browsers/:id/fs/list_files',
      { schema: { params: sessionParams, querystring: pathOnly } },
      async (req) => {
        const session = live(req);
        const clientPath = req.query.path;
        const host = await resolveIn(session, clientPath, QUERY_PATH);
        await directoryAt(host, clientPath, QUERY_PATH);
        const names = (await mapFsErrors(QUERY_PATH, clientPath, () => readdir(host))).sort();
        const base = cleanViewPath(clientPath);
        // lstat, as Go's DirEntry.Info(): a symlink is listed as a link ("L…"), not as its target.
        const infos = await Promise.all(
          names.map(async (name) => {
            const st = await lstat(join(host, name)).catch(() => undefined); // removed meanwhile: skip
            return st && fileInfo(posix.join(base, name), st);
          }),
        );
        return infos.filter((info) => info !== undefined);
      },
    );

    scope.get<{ Params: Params; Querystring: PathArgs }>(
      '/browsers/:id/fs/file_info',
      { schema: { params: sessionParams, querystring: pathOnly } },
      async (req) => {
        const session = live(req);
        const host = await resolveIn(session, req.query.path, QUERY_PATH);
        const st = await mapFsErrors(QUERY_PATH, req.query.path, () => stat(host));
        return fileInfo(cleanViewPath(req.query.path), st);
      },
    );

    scope.put<{ Params: Params; Body: ModeArgs }>(
      '/browsers/:id/fs/create_directory',
      { schema: { params: sessionParams, body: pathAndMode } },
      async (req, reply) => {
        const session = live(req);
        const clientPath = req.body.path;
        const host = await resolveIn(session, clientPath, BODY_PATH);
        const dirMode = parseMode(req.body.mode, 0o755);
        await mapFsErrors(BODY_PATH, clientPath, async () => {
          const first = await mkdir(host, { recursive: true, mode: dirMode });
          if (first === undefined) {
            if (!(await stat(host)).isDirectory()) throw conflict(`'${clientPath}' already exists and is not a directory`);
            return;
          }
          // mkdir's mode passes through the umask; every directory created here gets the mode asked for.
          for (let dir = host; ; dir = dirname(dir)) {
            await chmod(dir, dirMode);
            if (dir === first || dir === dirname(dir)) break;
          }
        });
        return reply.code(201).send();
      },
    );

    scope.put<{ Params: Params; Body: PathArgs }>(
      '/browsers/:id/fs/delete_file',
      { schema: { params: sessionParams, body: pathOnly } },
      async (req, reply) => {
        const session = live(req);
        const clientPath = req.body.path;
        const host = await resolveEntryIn(session, clientPath, BODY_PATH);
        await mapFsErrors(BODY_PATH, clientPath, async () => {
          if ((await lstat(host)).isDirectory()) throw invalidField(BODY_PATH, `'${clientPath}' is a directory; use delete_directory`);
          await unlink(host);
        });
        return reply.send();
      },
    );

    scope.put<{ Params: Params; Body: PathArgs }>(
      '/browsers/:id/fs/delete_directory',
      { schema: { params: sessionParams, body: pathOnly } },
      async (req, reply) => {
        const session = live(req);
        const clientPath = req.body.path;
        const host = await resolveEntryIn(session, clientPath, BODY_PATH);
        await mapFsErrors(BODY_PATH, clientPath, async () => {
          if (!(await lstat(host)).isDirectory()) throw invalidField(BODY_PATH, `'${clientPath}' is not a directory; use delete_file`);
          // rm removes symlinks found inside the tree; it never follows them.
          await rm(host, { recursive: true });
        });
        return reply.send();
      },
    );

    scope.put<{ Params: Params; Body: { src_path: string; dest_path: string } }>(
      '/browsers/:id/fs/move',
      { schema: { params: sessionParams, body: moveBody } },
      async (req, reply) => {
        const session = live(req);
        const { src_path: srcPath, dest_path: destPath } = req.body;
        const src = await resolveEntryIn(session, srcPath, 'body.src_path');
        const dest = await resolveEntryIn(session, destPath, 'body.dest_path');
        await mapFsErrors('body.src_path', srcPath, () => lstat(src));
        // The source exists, so what can still go wrong is about the destination (e.g. its parent is missing).
        await mapFsErrors('body.dest_path', destPath, () => rename(src, dest));
        return reply.send();
      },
    );

    scope.put<{ Params: Params; Body: { path: string; mode: string; owner?: string; group?: string } }>(
      '/browsers/:id/fs/set_file_permissions',
      { schema: { params: sessionParams, body: permissionsBody } },
      async (req, reply) => {
        const session = live(req);
        const { path: clientPath, owner, group } = req.body;
        const host = await resolveIn(session, clientPath, BODY_PATH);
        // Names are looked up first, so an unknown one changes nothing.
        const uid = owner === undefined ? -1 : await lookupId('passwd', owner, 'body.owner');
        const gid = group === undefined ? -1 : await lookupId('group', group, 'body.group');
        await mapFsErrors(BODY_PATH, clientPath, async () => {
          await chmod(host, parseMode(req.body.mode, 0o644));
          // Unlike the hosted server, a chown the host refuses (EPERM: we are not root) is reported, not ignored.
          if (uid !== -1 || gid !== -1) await chown(host, uid, gid);
        });
        return reply.send();
      },
    );

    scope.post<{ Params: Params }>('/browsers/:id/fs/upload', { schema: { params: sessionParams } }, async (req, reply) => {
      const session = live(req);
      if (!req.isMultipart()) throw invalidField('body', 'must be multipart/form-data with files[N][file] and files[N][dest_path]');
      await receiveUploads(req.parts(), session.view);
      return reply.code(201).send();
    });

    scope.post<{ Params: Params }>('/browsers/:id/fs/upload_zip', { schema: { params: sessionParams } }, async (req, reply) => {
      const session = live(req);
      if (!req.isMultipart()) throw invalidField('body', 'must be multipart/form-data with zip_file and dest_path');
      await receiveZipUpload(req.parts(), session.view);
      return reply.code(201).send();
    });

    scope.get<{ Params: Params; Querystring: PathArgs }>(
      '/browsers/:id/fs/download_dir_zip',
      { schema: { params: sessionParams, querystring: pathOnly } },
      async (req, reply) => {
        const session = live(req);
        const host = await resolveIn(session, req.query.path, QUERY_PATH);
        await directoryAt(host, req.query.path, QUERY_PATH);
        const zip = zipDirectory(host, (msg, err) => req.log.warn({ err }, msg));
        return reply.type('application/zip').send(zip);
      },
    );

    scope.post<{ Params: Params; Body: { path: string; recursive?: boolean } }>(
      '/browsers/:id/fs/watch',
      { schema: { params: sessionParams, body: watchBody } },
      async (req, reply) => {
        const session = live(req);
        const clientPath = req.body.path;
        const host = await resolveIn(session, clientPath, BODY_PATH);
        await directoryAt(host, clientPath, BODY_PATH);
        const warn = (msg: string, err?: unknown) => app.log.warn({ session_id: session.id, err }, msg);
        const watch = await mapFsErrors(BODY_PATH, clientPath, () =>
          startWatch(session, host, cleanViewPath(clientPath), req.body.recursive ?? false, warn),
        );
        return reply.code(201).send({ watch_id: watch.id });
      },
    );

    scope.get<{ Params: WatchParams }>(
      '/browsers/:id/fs/watch/:watch_id/events',
      { schema: { params: watchParams } },
      async (req, reply) => {
        const session = live(req);
        const watch = findWatch(session, req.params.watch_id);
        const sse = openSse(req, reply);
        const unsubscribe = watch.subscribe({ send: (event) => sse.send(event), close: () => sse.close() });
        void sse.closed.then(unsubscribe);
      },
    );

    scope.delete<{ Params: WatchParams }>(
      '/browsers/:id/fs/watch/:watch_id',
      { schema: { params: watchParams } },
      async (req, reply) => {
        stopWatch(live(req), req.params.watch_id);
        return reply.code(204).send();
      },
    );
  });
}
