// /browsers/{id}/fs/*: the browser host's file system as the hosted API exposes it, confined to the
// session's host view. Every path is walked inside the view by host/fs/confined-fs.ts, for reads and writes
// alike, so the kernel keeps each operation in the view whatever a session's processes do meanwhile.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import { chmod, chown, lstat, readdir, rename, unlink } from 'node:fs/promises';
import { posix } from 'node:path';
import type { ServiceContext } from '../context.js';
import { conflict, invalidField } from '../errors.js';
import {
  cleanViewPath,
  fsError,
  fileInfo,
  mapFsErrors,
  notRegularError,
  openForRead,
  parseMode,
  checkClientPath,
  writeError,
  writeFileFrom,
  ConfinedWalk,
  withWalk,
  type Existing,
  lookupId,
  receiveUploads,
  receiveZipUpload,
  findWatch,
  startWatch,
  stopWatch,
  zipDirectory,
} from '../host/fs/index.js';
import type { LiveSession } from '../host/session/index.js';
import { openSse } from '../sse.js';
import {
  fileInfo as fileInfoSchema,
  fileBytes,
  fsEvent,
  fsMoveParams,
  pathAndMode,
  pathOnly,
  fsPermissionsParams,
  fsUploadForm,
  fsUploadZipForm,
  fsWatch,
  fsWatchParams,
} from '../../api/schemas/fs.js';
import { liveSession, sessionParams } from './lookup.js';
import { content, created, createdEmpty, documentedBody, done, eventStream, noContent, ok } from './responses.js';
import { acceptMultipart } from './uploads.js';

const moveBody = fsMoveParams;
const permissionsBody = fsPermissionsParams;
const watchBody = fsWatchParams;
const uploadForm = fsUploadForm;
const uploadZipForm = fsUploadZipForm;

const watchParams = {
  type: 'object',
  required: ['id', 'watch_id'],
  properties: { ...sessionParams.properties, watch_id: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

type Params = { id: string };
type WatchParams = Params & { watch_id: string };
type PathArgs = FromSchema<typeof pathOnly>;
type ModeArgs = FromSchema<typeof pathAndMode>;

const QUERY_PATH = 'querystring.path';
const BODY_PATH = 'body.path';

/**
 * Runs `work` with a walk of the session's view; errno failures become wire errors about `clientPath`.
 * The path is checked first for the messages (absolute, no NUL); the walk is what keeps it inside.
 */
function inView<T>(session: LiveSession, clientPath: string, field: string, work: (walk: ConfinedWalk) => Promise<T> | T): Promise<T> {
  checkClientPath(clientPath, field);
  return mapFsErrors(field, clientPath, () => withWalk(session.view.root, work));
}

function directory(found: Existing, clientPath: string, field: string): Existing {
  if (!found.stats.isDirectory()) throw invalidField(field, `'${clientPath}' is not a directory`);
  return found;
}

function notRoot(clientPath: string, field: string): void {
  if (cleanViewPath(clientPath) === '/') throw invalidField(field, 'must not be the root directory');
}

export function registerFsRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const live = (req: FastifyRequest<{ Params: Params }>) => liveSession(ctx.browsers, ctx.sessions, req, req.params.id);

  // write_file takes the raw body whatever its content type, unparsed, so it streams to disk with no
  // size limit. Its own encapsulated scope keeps that catch-all parser away from every other route.
  void app.register(async (raw) => {
    raw.removeAllContentTypeParsers();
    raw.addContentTypeParser('*', (_req, _payload, done) => done(null));

    raw.put<{ Params: Params; Querystring: ModeArgs }>(
      '/browsers/:id/fs/write_file',
      {
        schema: { params: sessionParams, querystring: pathAndMode, response: createdEmpty('Written: the file was created or replaced') },
        config: documentedBody('application/octet-stream', fileBytes, "The file's bytes, written as sent whatever the content type"),
      },
      async (req, reply) => {
        const session = await live(req);
        const { path: clientPath } = req.query;
        const explicit = req.query.mode === undefined ? undefined : parseMode(req.query.mode, 0o644);
        checkClientPath(clientPath, QUERY_PATH);
        await withWalk(session.view.root, (walk) => writeFileFrom(req.raw, walk, clientPath, { mode: explicit, createMode: 0o644 })).catch((err) =>
          Promise.reject(writeError(err, QUERY_PATH, clientPath)),
        );
        return reply.code(201).send();
      },
    );
  });

  void app.register(async (scope) => {
    // Only fs uploads parse multipart. Files may be as large as the disk.
    await acceptMultipart(scope, { fileSize: Infinity, fieldSize: 64 * 1024, parts: 1000 });

    scope.get<{ Params: Params; Querystring: PathArgs }>(
      '/browsers/:id/fs/read_file',
      { schema: { params: sessionParams, querystring: pathOnly, response: content("The file's bytes", 'application/octet-stream') } },
      async (req, reply) => {
        const session = await live(req);
        checkClientPath(req.query.path, QUERY_PATH);
        const { stream, stats } = await withWalk(session.view.root, (walk) => openForRead(walk.existing(req.query.path))).catch((err) =>
          Promise.reject(notRegularError(err, QUERY_PATH, req.query.path)),
        );
        reply.type('application/octet-stream').header('content-length', stats.size);
        return reply.send(stream);
      },
    );

    scope.get<{ Params: Params; Querystring: PathArgs }>(
      '/browsers/:id/fs/list_files',
      {
        schema: {
          params: sessionParams,
          querystring: pathOnly,
          response: ok('The entries of the directory by name; a symlink as itself, not its target', { type: 'array', items: fileInfoSchema }),
        },
      },
      async (req) => {
        const session = await live(req);
        const clientPath = req.query.path;
        const base = cleanViewPath(clientPath);
        return inView(session, clientPath, QUERY_PATH, async (walk) => {
          const dir = directory(walk.existing(clientPath), clientPath, QUERY_PATH).path;
          const names = (await readdir(dir)).sort();
          // lstat, as Go's DirEntry.Info(): a symlink is listed as a link ("L…"), not as its target.
          // Each name is looked up in the held folder, so a swapped-in link is listed, never entered.
          const infos = await Promise.all(
            names.map(async (name) => {
              const st = await lstat(`${dir}/${name}`).catch(() => undefined); // removed meanwhile: skip
              return st && fileInfo(posix.join(base, name), st);
            }),
          );
          return infos.filter((info) => info !== undefined);
        });
      },
    );

    scope.get<{ Params: Params; Querystring: PathArgs }>(
      '/browsers/:id/fs/file_info',
      { schema: { params: sessionParams, querystring: pathOnly, response: ok('The file or directory', fileInfoSchema) } },
      async (req) => {
        const session = await live(req);
        const st = await inView(session, req.query.path, QUERY_PATH, (walk) => walk.existing(req.query.path).stats);
        return fileInfo(cleanViewPath(req.query.path), st);
      },
    );

    scope.put<{ Params: Params; Body: ModeArgs }>(
      '/browsers/:id/fs/create_directory',
      {
        schema: { params: sessionParams, body: pathAndMode, response: createdEmpty('Created with any missing parents, or there already') },
      },
      async (req, reply) => {
        const session = await live(req);
        const clientPath = req.body.path;
        const dirMode = parseMode(req.body.mode, 0o755);
        await inView(session, clientPath, BODY_PATH, (walk) => {
          try {
            walk.mkdirAll(clientPath, dirMode);
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw conflict(`'${clientPath}' already exists and is not a directory`);
            throw err;
          }
        });
        return reply.code(201).send();
      },
    );

    scope.put<{ Params: Params; Body: PathArgs }>(
      '/browsers/:id/fs/delete_file',
      { schema: { params: sessionParams, body: pathOnly, response: done('Deleted') } },
      async (req, reply) => {
        const session = await live(req);
        const clientPath = req.body.path;
        notRoot(clientPath, BODY_PATH);
        await inView(session, clientPath, BODY_PATH, async (walk) => {
          const entry = walk.entry(clientPath);
          if ((await lstat(entry.path)).isDirectory()) throw invalidField(BODY_PATH, `'${clientPath}' is a directory; use delete_directory`);
          await unlink(entry.path);
        });
        return reply.send();
      },
    );

    scope.put<{ Params: Params; Body: PathArgs }>(
      '/browsers/:id/fs/delete_directory',
      { schema: { params: sessionParams, body: pathOnly, response: done('Deleted, with everything in it') } },
      async (req, reply) => {
        const session = await live(req);
        const clientPath = req.body.path;
        notRoot(clientPath, BODY_PATH);
        await inView(session, clientPath, BODY_PATH, async (walk) => {
          const entry = walk.entry(clientPath);
          if (!(await lstat(entry.path)).isDirectory()) throw invalidField(BODY_PATH, `'${clientPath}' is not a directory; use delete_file`);
          // Held folder by held folder: links inside the tree are removed, never followed.
          walk.removeTree(entry);
        });
        return reply.send();
      },
    );

    scope.put<{ Params: Params; Body: FromSchema<typeof moveBody> }>(
      '/browsers/:id/fs/move',
      { schema: { params: sessionParams, body: moveBody, response: done('Moved') } },
      async (req, reply) => {
        const session = await live(req);
        const { src_path: srcPath, dest_path: destPath } = req.body;
        notRoot(srcPath, 'body.src_path');
        notRoot(destPath, 'body.dest_path');
        checkClientPath(destPath, 'body.dest_path');
        await inView(session, srcPath, 'body.src_path', async (walk) => {
          const src = walk.entry(srcPath);
          await lstat(src.path);
          // The source exists, so what can still go wrong is about the destination (e.g. its parent is missing).
          await mapFsErrors('body.dest_path', destPath, async () => rename(src.path, walk.entry(destPath).path));
        });
        return reply.send();
      },
    );

    scope.put<{ Params: Params; Body: FromSchema<typeof permissionsBody> }>(
      '/browsers/:id/fs/set_file_permissions',
      { schema: { params: sessionParams, body: permissionsBody, response: done('Changed') } },
      async (req, reply) => {
        const session = await live(req);
        const { path: clientPath, owner, group } = req.body;
        // Names are looked up first, so an unknown one changes nothing.
        const uid = owner === undefined ? -1 : await lookupId('passwd', owner, 'body.owner');
        const gid = group === undefined ? -1 : await lookupId('group', group, 'body.group');
        await inView(session, clientPath, BODY_PATH, async (walk) => {
          // The pinned path is the file itself: chmod and chown reach it, never a link swapped in by name.
          const target = walk.existing(clientPath).path;
          await chmod(target, parseMode(req.body.mode, 0o644));
          // Unlike the hosted server, a chown the host refuses (EPERM: we are not root) is reported, not ignored.
          if (uid !== -1 || gid !== -1) await chown(target, uid, gid);
        });
        return reply.send();
      },
    );

    const uploadRoute = {
      schema: { params: sessionParams, response: createdEmpty('Written: every file, to its dest_path') },
      config: documentedBody('multipart/form-data', uploadForm, 'The files and where each goes'),
    };
    scope.post<{ Params: Params }>('/browsers/:id/fs/upload', uploadRoute, async (req, reply) => {
      const session = await live(req);
      if (!req.isMultipart()) throw invalidField('body', 'must be multipart/form-data with files[N][file] and files[N][dest_path]');
      await withWalk(session.view.root, (walk) => receiveUploads(req.parts(), walk, 'body'));
      return reply.code(201).send();
    });

    const uploadZipRoute = {
      schema: { params: sessionParams, response: createdEmpty('Extracted') },
      config: documentedBody('multipart/form-data', uploadZipForm, 'The archive and the directory to extract it into'),
    };
    scope.post<{ Params: Params }>('/browsers/:id/fs/upload_zip', uploadZipRoute, async (req, reply) => {
      const session = await live(req);
      if (!req.isMultipart()) throw invalidField('body', 'must be multipart/form-data with zip_file and dest_path');
      await withWalk(session.view.root, (walk) => receiveZipUpload(req.parts(), walk, 'body'));
      return reply.code(201).send();
    });

    scope.get<{ Params: Params; Querystring: PathArgs }>(
      '/browsers/:id/fs/download_dir_zip',
      {
        schema: { params: sessionParams, querystring: pathOnly, response: content('A zip archive of the directory and all in it', 'application/zip') },
      },
      async (req, reply) => {
        const session = await live(req);
        checkClientPath(req.query.path, QUERY_PATH);
        // The walk stays open while the archive streams out; zipDirectory closes it at the end.
        const walk = ConfinedWalk.open(session.view.root);
        let dir: string;
        try {
          dir = directory(walk.existing(req.query.path), req.query.path, QUERY_PATH).path;
        } catch (err) {
          walk.close();
          throw fsError(err, QUERY_PATH, req.query.path);
        }
        const zip = zipDirectory(walk, dir, (msg, err) => req.log.warn({ err }, msg));
        return reply.type('application/zip').send(zip);
      },
    );

    scope.post<{ Params: Params; Body: FromSchema<typeof watchBody> }>(
      '/browsers/:id/fs/watch',
      {
        schema: { params: sessionParams, body: watchBody, response: created('The watch; its events stream from .../watch/{watch_id}/events', fsWatch) },
      },
      async (req, reply) => {
        const session = await live(req);
        const clientPath = req.body.path;
        const warn = (msg: string, err?: unknown) => app.log.warn({ session_id: session.id, err }, msg);
        checkClientPath(clientPath, BODY_PATH);
        // The watch holds its walk (and so the folder's pinned path) until it stops.
        const walk = ConfinedWalk.open(session.view.root);
        const watch = await mapFsErrors(BODY_PATH, clientPath, async () => {
          try {
            const dir = directory(walk.existing(clientPath), clientPath, BODY_PATH).path;
            return await startWatch(session, dir, cleanViewPath(clientPath), req.body.recursive ?? false, warn, () => walk.close());
          } catch (err) {
            walk.close();
            throw err;
          }
        });
        return reply.code(201).send({ watch_id: watch.id });
      },
    );

    scope.get<{ Params: WatchParams }>(
      '/browsers/:id/fs/watch/:watch_id/events',
      {
        schema: {
          params: watchParams,
          response: eventStream('Changes in the watched directory; those made while no stream was open (the last 1000) come first', fsEvent),
        },
      },
      async (req, reply) => {
        const session = await live(req);
        const watch = findWatch(session, req.params.watch_id);
        const sse = openSse(req, reply);
        const unsubscribe = watch.subscribe({ send: (event) => sse.send(event), close: () => sse.close() });
        void sse.closed.then(unsubscribe);
      },
    );

    scope.delete<{ Params: WatchParams }>(
      '/browsers/:id/fs/watch/:watch_id',
      { schema: { params: watchParams, response: noContent('Stopped; its event streams end') } },
      async (req, reply) => {
        stopWatch(await live(req), req.params.watch_id);
        return reply.code(204).send();
      },
    );
  });
}
