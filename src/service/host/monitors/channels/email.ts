// Alert mail over SMTP (nodemailer). The server's name is resolved and checked against the egress policy
// here, then nodemailer connects to that address with TLS verifying the certificate for the name
// (servername), so the check and the connection are about the same address. `secure` is implicit TLS
// (465); otherwise STARTTLS is used when offered, and required when credentials are sent: a password never
// crosses the network in clear.
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import type nodemailerTypes from 'nodemailer';
import type { Alert, Channel } from '../alert.js';
import { allowedAddresses } from './egress.js';
import { AttemptTimeout, ChannelConfigError, SendFailure } from './errors.js';
import { extraCa, type SendContext } from './http.js';
import { alertFacts, alertLinks, headline } from './links.js';

type EmailChannel = Extract<Channel, { type: 'email' }>;

export interface AlertMail {
  subject: string;
  text: string;
  html: string;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

export function alertMail(alert: Alert): AlertMail {
  const subject = headline(alert).slice(0, 250);
  const facts = alertFacts(alert);
  const links = alertLinks(alert);
  const screenshot = links.find((l) => l.kind === 'screenshot');
  const text = [
    subject,
    '',
    ...facts.map(([label, value]) => `${label}: ${value}`),
    '',
    ...links.map((l) => `${l.label}: ${l.url}`),
    '',
    `Alert ${alert.id} at ${alert.at}, from bcs monitor.`,
    '',
  ].join('\n');
  const html = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    `<h2>${escapeHtml(subject)}</h2>`,
    '<table cellpadding="4">',
    ...facts.map(([label, value]) => `<tr><th align="left" valign="top">${escapeHtml(label)}</th><td style="white-space:pre-wrap">${escapeHtml(value)}</td></tr>`),
    '</table>',
    screenshot ? `<p><a href="${escapeHtml(screenshot.url)}"><img src="${escapeHtml(screenshot.url)}" alt="${escapeHtml(screenshot.label)}" style="max-width:100%"></a></p>` : '',
    links.length ? `<ul>${links.map((l) => `<li><a href="${escapeHtml(l.url)}">${escapeHtml(l.label)}</a></li>`).join('')}</ul>` : '',
    `<p style="color:#666">Alert ${escapeHtml(alert.id)} at ${escapeHtml(alert.at)}, from bcs monitor.</p>`,
    '</body></html>',
  ].join('\n');
  return { subject, text, html };
}

export function smtpDestination(channel: EmailChannel): string {
  const host = channel.smtp.host.includes(':') ? `[${channel.smtp.host}]` : channel.smtp.host;
  return `smtp${channel.smtp.secure ? 's' : ''}://${host}:${channel.smtp.port}`;
}

export async function sendEmail(channel: EmailChannel, alert: Alert, ctx: SendContext): Promise<void> {
  if (channel.to.length === 0) throw new ChannelConfigError('the channel has no recipients');
  const destination = smtpDestination(channel);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AttemptTimeout(destination, ctx.timeoutMs)), ctx.timeoutMs);
  });
  let close = () => {};
  try {
    await Promise.race([
      timeout,
      (async () => {
        const { host, port, secure, user, password } = channel.smtp;
        const [address] = await allowedAddresses(host, port, ctx.allowAddress, ctx.resolve);
        const withAuth = Boolean(user && password);
        const transport = nodemailer().createTransport({
          host: address!.address,
          port,
          secure,
          requireTLS: withAuth,
          auth: withAuth ? { user, pass: password } : undefined,
          tls: { servername: isIP(host) ? undefined : host, ca: extraCa(ctx.ca) },
          // nodemailer's own bounds end its socket; the race above is what bounds the attempt.
          connectionTimeout: ctx.timeoutMs,
          greetingTimeout: ctx.timeoutMs,
          socketTimeout: ctx.timeoutMs,
          logger: false,
          debug: false,
        });
        close = () => transport.close();
        const mail = alertMail(alert);
        await transport
          .sendMail({
            from: channel.from,
            to: channel.to,
            subject: mail.subject,
            text: mail.text,
            html: mail.html,
            headers: { 'X-Bcs-Alert-Id': alert.id },
            // The message is ours alone: nodemailer must never read a file or fetch a URL into it.
            disableFileAccess: true,
            disableUrlAccess: true,
          })
          .catch((err: unknown) => {
            throw smtpFailure(destination, err, withAuth);
          });
      })(),
    ]);
  } finally {
    clearTimeout(timer);
    close();
  }
}

interface NodemailerError extends Error {
  code?: string;
  responseCode?: number;
  command?: string;
}

/** nodemailer's error as a SendFailure: an SMTP 4xx reply and a lost connection are worth another attempt. */
function smtpFailure(destination: string, err: unknown, withAuth: boolean): Error {
  const e = err as NodemailerError;
  if (!(e instanceof Error)) return new SendFailure(`${destination}: ${String(err)}`, true);
  const message = e.message.replace(/\s+/g, ' ').trim();
  if (withAuth && e.code === 'ETLS' && e.command === 'STARTTLS') {
    return new SendFailure(`${destination} does not offer STARTTLS, and the password is not sent without TLS (${message})`, false);
  }
  if (isCertificateProblem(e)) return new SendFailure(`${destination}: TLS failed: ${message}`, false);
  if (e.code === 'EAUTH') return new SendFailure(`${destination}: authentication failed: ${message}`, false);
  if (typeof e.responseCode === 'number') return new SendFailure(`${destination}: ${message}`, e.responseCode < 500);
  return new SendFailure(`${destination}: ${message}`, true);
}

export function isCertificateProblem(err: Error & { code?: string }): boolean {
  return /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_CERT/.test(err.code ?? '') || /certificate|altnames/i.test(err.message);
}

/** Loaded on the first alert mail, not with the service. */
const nodemailer = () => createRequire(import.meta.url)('nodemailer') as typeof nodemailerTypes;
