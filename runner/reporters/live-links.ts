// `bcs run --live`: each scenario's live view link, said as its browser starts, so someone can watch the
// run (or take the mouse and keyboard) while it goes on.
import type { RunReporter } from './reporter.js';

export function liveLinksReporter(say: (message: string) => void): RunReporter {
  return {
    name: 'live',
    sessionOpened(plan, session) {
      say(
        session.live_view_url
          ? `live view of '${plan.scenario.name}': ${session.live_view_url}`
          : `no live view of '${plan.scenario.name}': the target gave none for session ${session.session_id}`,
      );
    },
  };
}
