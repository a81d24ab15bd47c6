// A Slack-compatible incoming webhook (Mattermost and others take the same `{text, blocks}`). Everything
// from the alert is escaped for mrkdwn (&, <, >): a check or error message cannot ping `<!channel>` or
// forge a link. `text` is what notifications and clients without blocks show.
import type { Alert, Channel } from '../alert.js';
import { postJson, type SendContext } from './http.js';
import { alertFacts, alertLinks, headline } from './links.js';

type SlackChannel = Extract<Channel, { type: 'slack' }>;

export interface SlackMessage {
  text: string;
  blocks: SlackBlock[];
}

export type SlackBlock =
  | { type: 'header'; text: { type: 'plain_text'; text: string } }
  | { type: 'section'; text?: { type: 'mrkdwn'; text: string }; fields?: Array<{ type: 'mrkdwn'; text: string }> }
  | { type: 'image'; image_url: string; alt_text: string }
  | { type: 'context'; elements: Array<{ type: 'mrkdwn'; text: string }> };

// Slack's limits: a header's text, a section's text, a field.
const HEADER_MAX = 150;
const SECTION_MAX = 3000;
const FIELD_MAX = 2000;

export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `<url|label>`: the URL with `|` encoded (it would end the URL) and entities escaped like the text. */
function mrkdwnLink(url: string, label: string): string {
  return `<${escapeMrkdwn(url.replace(/\|/g, '%7C'))}|${escapeMrkdwn(label.replace(/\|/g, '/'))}>`;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function slackMessage(alert: Alert): SlackMessage {
  const links = alertLinks(alert);
  const facts = alertFacts(alert);
  const message = facts.find(([label]) => label === 'Error');
  const blocks: SlackBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: cut(headline(alert), HEADER_MAX) } },
    {
      type: 'section',
      fields: facts.filter((f) => f !== message).map(([label, value]) => ({ type: 'mrkdwn', text: cut(`*${label}*\n${escapeMrkdwn(value)}`, FIELD_MAX) })),
    },
  ];
  if (message) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: cut(`*Error*\n${escapeMrkdwn(message[1])}`, SECTION_MAX) } });
  const screenshot = links.find((l) => l.kind === 'screenshot');
  if (screenshot) blocks.push({ type: 'image', image_url: screenshot.url, alt_text: screenshot.label });
  if (links.length) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: cut(links.map((l) => mrkdwnLink(l.url, l.label)).join('  ·  '), SECTION_MAX) } });
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(`bcs monitor · alert ${alert.id} · ${alert.at}`) }] });
  const run = links.find((l) => l.kind === 'run');
  return { text: `${escapeMrkdwn(headline(alert))}${run ? ` ${mrkdwnLink(run.url, run.label)}` : ''}`, blocks };
}

export async function sendSlack(channel: SlackChannel, alert: Alert, ctx: SendContext): Promise<void> {
  await postJson(channel.url, JSON.stringify(slackMessage(alert)), { 'user-agent': 'bcs-monitor' }, ctx);
}
