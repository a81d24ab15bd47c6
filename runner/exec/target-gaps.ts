// What a run found its target lacks of what bcs adds to the hosted API (a hosted target, or `bcs serve
// --strict-wire`), each with what the runner does instead. Found by the call that needed it (a 404 where a
// route of ours would answer, an answer without a field of ours), remembered for the rest of the run so no
// call is made in vain again, and said once when the run ends: a note, not a failure.

export type Gap = 'replay_markers' | 'replay_markers_vtt' | 'replay_duration' | 'exec_timed_out' | 'keep_on_failure';

/** In the order a note names them: what was missing, and what the runner did without it. */
const GAPS: Record<Gap, { lacked: string; instead: string }> = {
  replay_markers: {
    lacked: 'replay markers',
    instead: 'the runner kept them, at offsets from the recording start it saw, in replay.vtt and the report',
  },
  replay_markers_vtt: { lacked: "the markers' WebVTT track", instead: 'the runner wrote replay.vtt from the markers' },
  replay_duration: { lacked: "a replay's duration_ms", instead: 'the runner timed the video from its start to its stop' },
  exec_timed_out: { lacked: "exec's timed_out", instead: 'a command that ran as long as its timeout counts as timed out' },
  keep_on_failure: { lacked: 'keeping a browser (POST /browsers/{id}/keep, for --keep-on-failure)', instead: "failed scenarios' browsers were deleted as usual" },
};

export interface LackedFeature {
  /** What the target did not have, e.g. `replay markers`. */
  feature: string;
  /** What the runner did instead. */
  instead: string;
}

export class TargetGaps {
  readonly #found = new Set<Gap>();

  lack(gap: Gap): void {
    this.#found.add(gap);
  }

  lacks(gap: Gap): boolean {
    return this.#found.has(gap);
  }

  /** What was found missing, in a fixed order. */
  list(): LackedFeature[] {
    return (Object.keys(GAPS) as Gap[]).filter((g) => this.#found.has(g)).map((g) => ({ feature: GAPS[g].lacked, instead: GAPS[g].instead }));
  }

  /** The one note a run gives about its target, or undefined when it lacked nothing the run used. */
  note(): string | undefined {
    const lacked = this.list();
    if (!lacked.length) return undefined;
    return `the target lacks what bcs adds to the hosted API; the run went on without it: ${lacked.map((l) => `${l.feature} (${l.instead})`).join('; ')}`;
  }
}
