/**
 * A session as a Markdown document someone can read top to bottom: the question, every round per
 * model, the consensus, then the verdict with its P0/P1/P2 actions.
 *
 * User and model text is untrusted, and a viewer may render HTML. Answers and the verdict's summary and answer
 * keep their Markdown formatting, re-written from an allow-list (`modelMarkdown`: emphasis, lists, code,
 * tables, quotes, http(s) links; never raw HTML, an image or another link). Every other field (the question,
 * names, actions, consensus, errors) is plain text with each structural character backslash-escaped, so it
 * renders as the literal text it is. The export's own headings are the only ones. Control characters (ESC, BEL, C1,
 * DCS) and bidi overrides anywhere in it are shown as visible marks (`visibleControls`), as the web UI shows them.
 */
import type { Action, Answer, Grounding, Session, SlotNumber } from '../../../sdk/src/generated/types.gen.js';
import { visibleControls } from '../../../sdk/src/terminal/terminal.js';
import { integritySection } from './integrity-markdown.js';
import { escapeMarkdown, modelMarkdown } from './model-markdown.js';
import { panelLine, panelSections } from './panel-markdown.js';

export { escapeMarkdown };

export function sessionMarkdown(session: Session): string {
  const out: string[] = [];
  out.push(`# ${oneLine(session.question)}`, '');
  out.push(
    `- Session: \`${session.id}\``,
    `- Mode: ${session.mode}${session.mode === 'deep' ? ` (${session.roundsRequested} rounds)` : ''}`,
    `- Status: **${session.status}**${session.missingSlots.length ? ` — missing ${slots(session.missingSlots)}` : ''}`,
    ...(session.endReason ? [`- Did not complete: ${inlineText(session.endReason)}`] : []),
    `- Started: ${session.createdAt}${session.completedAt ? `, ended ${session.completedAt}` : ''}`,
    `- Usage: ${session.usage.inputTokens} input + ${session.usage.outputTokens} output tokens; cost $${session.cost.usd.toFixed(4)}${session.cost.priced ? '' : ' (lower bound: some usage had no price)'}`,
    '',
  );
  const links = [
    ...panelLine(session),
    ...(session.parentId ? [`- Follows up: \`${session.parentId}\` (thread \`${session.threadId}\`)`] : []),
    ...(session.sourceSessionId ? [`- Synthesized from: \`${session.sourceSessionId}\``] : []),
    ...(session.earlyStop
      ? [
          `- Stopped early: every model held its position in round ${session.earlyStop.afterRound}, so the final round came next; saved about ${session.earlyStop.roundsSaved} round(s), ${session.earlyStop.callsSaved} calls, ${session.earlyStop.tokensSaved} tokens`,
        ]
      : []),
  ];
  out.splice(out.length - 1, 0, ...links);
  const offline = offlineSlots(session);
  if (offline.length > 0) {
    out.splice(
      out.length - 1,
      0,
      `- Offline: ${slots(offline)} answered with the built-in offline stand-in, not a model; that text shows the debate's mechanics only`,
    );
  }
  if (session.question.includes('\n')) out.push('## Question', '', inert(session.question), '');
  if (session.grounding) out.push(...groundingSection(session.grounding));

  for (const round of session.rounds) {
    out.push(`## Round ${round.number}: ${round.kind}`, '');
    for (const answer of round.answers) out.push(...answerSection(answer));
    if (round.missingSlots.length) out.push(`_Missing in this round: ${slots(round.missingSlots)}._`, '');
  }

  const consensus = session.consensus;
  if (consensus) {
    out.push('## Consensus', '');
    if (consensus.agreements.length) {
      out.push('### Agreements', '');
      for (const a of consensus.agreements) out.push(`- ${inlineText(a.statement)} (${slots(a.slots)})`);
      out.push('');
    }
    if (consensus.disagreements.length) {
      out.push('### Disagreements', '');
      for (const d of consensus.disagreements) {
        out.push(`- **${inlineText(d.topic)}**`);
        for (const p of d.positions) out.push(`  - ${inlineText(p.position)} (${slots(p.slots)})`);
      }
      out.push('');
    }
  }
  if (session.unmatchedLabels?.length) {
    out.push('### Holders that matched no panel member', '', '_Credited to no one:_', '');
    for (const u of session.unmatchedLabels)
      out.push(`- Slot ${u.reader}, round ${u.round}: ${inlineText(u.statement)} — “${inlineText(u.text)}”`);
    out.push('');
  }

  out.push(...panelSections(session, inlineText));

  const verdict = session.verdict;
  if (verdict) {
    const by = verdict.synthesizer;
    out.push('## Verdict', '');
    out.push(
      by.reason === 'vote'
        ? `_No model wrote it: the round-1 vote of an adaptive debate, in slot ${by.slot}'s words._`
        : `_Written by slot ${by.slot} (${inlineText(by.provider)}, ${inlineText(by.model)})${by.reason === 'fallback' ? `, standing in for slot ${by.fallbackFrom}` : by.reason === 'chosen' ? ', chosen by the request' : ''}${by.participated ? '' : ', outside the debate'}${verdict.confidence !== undefined ? `; confidence ${verdict.confidence}` : ''}._`,
      '',
    );
    if (verdict.format === 'unstructured') {
      out.push('The verdict did not validate; this is its raw text.', '', fenced(verdict.rawText ?? ''), '');
    } else {
      if (verdict.summary) out.push(modelMarkdown(verdict.summary), '');
      if (verdict.answer) out.push(modelMarkdown(verdict.answer), '');
      for (const priority of ['P0', 'P1', 'P2'] as const) {
        const actions = verdict.actions?.[priority] ?? [];
        out.push(`### ${priority}`, '');
        if (actions.length === 0) out.push('_None._');
        for (const action of actions) out.push(actionLine(action));
        out.push('');
      }
    }
    if (verdict.dissent.length) {
      out.push('### Dissent', '');
      for (const d of verdict.dissent) out.push(`- ${inlineText(d.text)} (${slots(d.slots)})`);
      out.push('');
    }
    if (verdict.positionChanges.length) {
      out.push('### Position changes', '');
      for (const c of verdict.positionChanges)
        out.push(
          `- Slot ${c.slot}: ${c.changed ? 'changed' : 'held'}${c.round ? ` (round ${c.round})` : ''} — ${inlineText(c.reason)}`,
        );
      out.push('');
    }
    if (verdict.degradation.degraded) {
      out.push('### Degradation', '');
      for (const r of verdict.degradation.reasons)
        out.push(`- Slot ${r.slot}${r.round ? `, round ${r.round}` : ''}: ${inlineText(r.code)} — ${inlineText(r.message)}`);
      out.push('');
    }
  }
  if (session.integrity) out.push(...integritySection(session.integrity, inlineText));
  // Last, over all of it: whatever a field let through, no control character or bidi override acts in a viewer.
  return `${visibleControls(out.join('\n').trimEnd())}\n`;
}

/**
 * A thread's sessions up to the one exported (oldest first) as one document; a lone session as itself.
 * `later` names the thread's sessions after it, so a reader knows the thread went on.
 */
export function threadMarkdown(sessions: readonly Session[], later: readonly string[] = []): string {
  const next =
    later.length > 0
      ? `\n---\n\n_Followed up later in this thread: ${later.map((id) => `\`${id}\``).join(', ')}. Export the latest session for the whole thread._\n`
      : '';
  if (sessions.length <= 1) return (sessions[0] ? sessionMarkdown(sessions[0]) : '') + next;
  const head = `_A thread of ${sessions.length} sessions, oldest first; each follows up on the one before._\n\n`;
  return head + sessions.map((s) => sessionMarkdown(s)).join('\n---\n\n') + next;
}

/** Slots whose text came from the offline stand-in: their answers say so, and so does its model id. */
function offlineSlots(session: Session): SlotNumber[] {
  const found = new Set<SlotNumber>(session.rounds.flatMap((r) => r.answers.filter((a) => a.offline).map((a) => a.slot)));
  const by = session.verdict?.synthesizer;
  if (by && /^offline-/.test(by.model)) found.add(by.slot);
  return [...found].sort((a, b) => a - b);
}

function answerSection(answer: Answer): string[] {
  const head = `### Slot ${answer.slot}: ${inlineText(answer.provider)} (${inlineText(answer.model)}${answer.offline ? ', offline' : ''})`;
  if (answer.error) {
    return [head, '', `_Failed: ${inlineText(answer.error.code)} — ${inlineText(answer.error.message)}_`, ''];
  }
  return [head, '', modelMarkdown(answer.text), ''];
}

function actionLine(action: Action): string {
  const support = `slots ${action.supportingSlots.join(', ') || 'none'}; rounds ${action.supportingRounds.join(', ') || 'none'}`;
  return `- **${inlineText(action.title)}** — ${inlineText(action.rationale)} _(${support})_`;
}

function slots(list: readonly SlotNumber[]): string {
  return list.map((s) => `slot ${s}`).join(', ');
}

function oneLine(text: string): string {
  return inlineText(text.split(LINE_ENDING)[0] ?? '')
    .slice(0, 200)
    .replace(/\\$/, '');
}

/** What CommonMark ends a line at: a lone `\r` too, so text cannot start a line of its own with one. */
const LINE_ENDING = /\r\n?|\n/;

/**
 * What the panel read: each source numbered as the models saw it, linked to the revision read, and the
 * citations that did not hold, apart (never as sources). A link only for an http(s) URL, its characters
 * that could end or break it percent-encoded.
 */
function groundingSection(g: Grounding): string[] {
  const out = ['## Sources', ''];
  out.push(
    `_Wiki ${inlineText(g.source)}: grounding ${g.status}${g.note ? ` — ${inlineText(g.note)}` : ''}. Verified citations: ${g.verifiedCitations}. Unverified citations: ${g.unverifiedCitations}. Read ${g.usage.requests} requests, ${g.usage.bytes} bytes, ${g.usage.ms} ms._`,
    '',
  );
  for (const p of g.pages) {
    const title = inlineText(p.title);
    const link = /^https?:\/\//i.test(p.url) ? `[${title}](${p.url.replace(/[()<>\s\\]/g, encodeURIComponent)})` : title;
    out.push(`- \\[${p.n}\\] ${link} — revision ${p.revisionId}, page ${p.pageId}, sha256 \`${p.sha256.slice(0, 16)}…\``);
  }
  if (g.pages.length === 0) out.push('_No page was read._');
  out.push('');
  const unverified = g.citations.filter((c) => !c.verified);
  if (unverified.length > 0) {
    out.push('### Unverified citations', '');
    for (const c of unverified) {
      const where = c.round === 0 ? 'verdict' : `round ${c.round}`;
      const why = c.reason === 'quote_not_found' ? 'quotation not in the page' : 'page not retrieved';
      out.push(`- Slot ${c.slot}, ${where}: ${inlineText(c.ref)}${c.quote ? ` “${inlineText(c.quote)}”` : ''} — ${why}`);
    }
    out.push('');
  }
  return out;
}

/** Text inside one list item, emphasis or heading: one line, every structural character escaped. */
function inlineText(text: string): string {
  return escapeMarkdown(
    text
      .split(LINE_ENDING)
      .map((line) => line.trim())
      .join(' ')
      .trim(),
  );
}

/**
 * A block of untrusted text as literal Markdown: each line escaped, kept on its own line by a hard break,
 * its leading indentation made of no-break spaces (four spaces would start an indented code block).
 */
export function inert(text: string): string {
  const lines = text.split(LINE_ENDING).map((line) => (line.trim() === '' ? '' : escapeMarkdown(indentation(line))));
  return lines.map((line, i) => (line !== '' && lines[i + 1] ? `${line}\\` : line)).join('\n');
}

function indentation(line: string): string {
  const lead = /^[ \t]*/.exec(line)![0];
  return '\u00a0'.repeat(lead.replace(/\t/g, '    ').length) + line.slice(lead.length);
}

function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text}\n${fence}`;
}
