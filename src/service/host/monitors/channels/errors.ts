// What can go wrong in one attempt to send an alert, as the dispatcher needs to tell it apart: whether a
// retry could help, and a reason a person can act on. Every message here is built from parts that carry
// no secret (an address, a status, a redacted URL); the dispatcher still scrubs the channel's secrets from
// the final text, because a receiver's answer or a library's message may echo them.

/** The egress policy refused every address the destination resolved to. Never retried: it will not change. */
export class DestinationRefused extends Error {
  override name = 'DestinationRefused';
  constructor(readonly address: string) {
    super(`destination ${address} is not allowed by the service's network policy`);
  }
}

/** One attempt took longer than the per-attempt bound. */
export class AttemptTimeout extends Error {
  override name = 'AttemptTimeout';
  constructor(
    readonly destination: string,
    readonly ms: number,
  ) {
    super(`${destination} did not answer within ${formatMs(ms)}`);
  }
}

/** The receiver answered, with a status other than 2xx. */
export class HttpStatusError extends Error {
  override name = 'HttpStatusError';
  constructor(
    readonly destination: string,
    readonly status: number,
    readonly statusText: string,
    /** The Retry-After header as received, when there was one. */
    readonly retryAfter: string | undefined,
    /** The start of the answer's body as received (receivers say there why they refused). */
    readonly body: string,
  ) {
    super(`${destination} answered ${status}${statusText ? ` ${statusText}` : ''}${status >= 300 && status < 400 ? ' (alert channels do not follow redirects)' : ''}`);
  }

  get retryable(): boolean {
    return this.status === 429 || this.status >= 500;
  }

  /**
   * The message with the start of the body on one line. `clean` takes secrets out of the whole body first:
   * cut first, a secret the receiver echoed could be left half there, which no scrubbing would then find.
   */
  reason(clean: (text: string) => string): string {
    const excerpt = oneLine(clean(this.body), 200);
    return excerpt ? `${this.message}: ${excerpt}` : this.message;
  }
}

/** A channel that cannot be sent to as configured (not an http(s) URL, no recipient): retrying cannot help. */
export class ChannelConfigError extends Error {
  override name = 'ChannelConfigError';
}

function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** At most `max` characters of `text` on one line, control characters and runs of blanks made single spaces. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A failure a sender has already judged: whether another attempt could succeed (an SMTP 4xx reply can). */
export class SendFailure extends Error {
  override name = 'SendFailure';
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}
