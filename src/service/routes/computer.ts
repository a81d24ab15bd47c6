// /browsers/{id}/computer/*: OS-level mouse, keyboard, screen and clipboard of a session.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FromSchema } from 'json-schema-to-ts';
import {
  batch,
  clickMouse,
  clipboardText,
  dragMouse,
  mousePosition,
  moveMouse,
  pressKey,
  screenshotBody,
  scroll,
  setCursor,
  typeText,
  writeClipboard,
} from '../../api/schemas/computer.js';
import { okResult } from '../../api/schemas/common.js';
import type { ServiceContext } from '../context.js';
import { ServiceError, conflict, statusOf } from '../errors.js';
import type { BatchAction, Computer } from '../host/input/index.js';
import { DEFAULT_VIEWPORT, expectedExit, type LiveSession } from '../host/session/index.js';
import { defaultEmptyBody } from './empty-body.js';
import { findSessionRow, liveSession, sessionParams } from './lookup.js';
import { content, done, noBody, ok } from './responses.js';

type Params = { id: string };

export function registerComputerRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const computerFor = async (req: FastifyRequest<{ Params: Params }>): Promise<Computer> => {
    const session = await liveSession(ctx.browsers, ctx.sessions, req, req.params.id);
    return ctx.computers.forSession(session, (await findSessionRow(ctx.browsers, req, session.id)).viewport ?? DEFAULT_VIEWPORT);
  };

  /** A POST that runs `handler` under the session's input lock; without a `body` schema it takes no body. */
  const route = <B>(path: string, body: object | undefined, response: object, handler: (c: Computer, body: B, gone: AbortSignal) => Promise<unknown>) =>
    app.post<{ Params: Params; Body: B }>(
      `/browsers/:id/computer/${path}`,
      {
        schema: { params: sessionParams, ...(body ? { body } : {}), response },
        ...(body ? {} : { config: noBody }),
        preValidation: defaultEmptyBody,
      },
      async (req, reply) => {
        const session = await liveSession(ctx.browsers, ctx.sessions, req, req.params.id);
        const computer = await computerFor(req);
        const gone = new AbortController();
        reply.raw.once('close', () => reply.raw.writableEnded || gone.abort());
        const result = await computer.exclusive(() => handler(computer, req.body as B, gone.signal)).catch(async (err: unknown) => {
          throw await browserGone(session, err);
        });
        if (Buffer.isBuffer(result)) return reply.type('image/png').send(result);
        return reply.send(result ?? undefined);
      },
    );

  route<Parameters<Computer['clickMouse']>[0]>('click_mouse', clickMouse, done('Clicked'), (c, b) => c.clickMouse(b, 'body'));
  route<Parameters<Computer['moveMouse']>[0]>('move_mouse', moveMouse, done('The pointer is there'), (c, b) => c.moveMouse(b, 'body'));
  route<Parameters<Computer['pressKey']>[0]>('press_key', pressKey, done('Pressed and released'), (c, b) => c.pressKey(b, 'body'));
  route<Parameters<Computer['typeText']>[0]>('type', typeText, done('Typed'), (c, b, gone) => c.typeText(b, gone));
  route<Parameters<Computer['scroll']>[0]>('scroll', scroll, done('Scrolled'), (c, b) => c.scroll(b, 'body'));
  route<Parameters<Computer['dragMouse']>[0]>('drag_mouse', dragMouse, done('Dragged'), (c, b) => c.dragMouse(b, 'body'));
  route<FromSchema<typeof screenshotBody> | undefined>(
    'screenshot',
    screenshotBody,
    content('The screen, or the region of it, as a PNG', 'image/png'),
    (c, b) => c.screenshot(b?.region, 'body.region'),
  );
  route('get_mouse_position', undefined, ok('Where the pointer is', mousePosition), async (c) => c.mousePosition());
  route<FromSchema<typeof setCursor>>('cursor', setCursor, ok('The pointer is hidden or shown', okResult), async (c, b) => {
    await c.device.setCursorHidden(b.hidden);
    return { ok: true };
  });
  route('clipboard/read', undefined, ok("The clipboard's text", clipboardText), async (c) => ({ text: await c.device.readClipboard() }));
  route<FromSchema<typeof writeClipboard>>('clipboard/write', writeClipboard, done('The clipboard holds the text'), (c, b) =>
    c.device.writeClipboard(b.text),
  );
  // batch takes the lock itself, for the whole batch, so it is not wrapped again.
  app.post<{ Params: Params; Body: { actions: BatchAction[] } }>(
    '/browsers/:id/computer/batch',
    { schema: { params: sessionParams, body: batch, response: done('Every action ran, in order') } },
    async (req, reply) => {
      const session = await liveSession(ctx.browsers, ctx.sessions, req, req.params.id);
      const computer = await computerFor(req);
      await computer.batch(req.body.actions, 'body.actions').catch(async (err: unknown) => {
        throw await browserGone(session, err);
      });
      return reply.send();
    },
  );
}

/** How long a failed action waits to learn whether the browser died under it. */
const EXIT_GRACE_MS = 1000;

/**
 * An action that failed because the browser died under it (its CDP connection closed, its display
 * went away) is the session's end, said as such (410), not an internal error. Anything else stands.
 */
async function browserGone(session: LiveSession, err: unknown): Promise<unknown> {
  // A client's mistake stands as it is; a failure (a batch's action_failed included) may be the browser's death.
  if ((statusOf(err) ?? 500) < 500) return err;
  const { chromium } = session;
  const exited = await Promise.race([
    chromium.exited.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), EXIT_GRACE_MS).unref()),
  ]);
  if (!exited && !session.ending) return err;
  if (!session.ending && expectedExit(session, chromium)) {
    return conflict(`browser '${session.id}' was restarted while the action ran (extensions or a profile were loaded); run it again`);
  }
  return new ServiceError(410, 'browser_ended', `browser '${session.id}' ended while the action ran (its Chromium exited); create a new one`);
}
