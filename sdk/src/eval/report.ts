/**
 * An evaluation's report: a Markdown document, and one self-contained HTML page with its charts drawn as inline
 * SVG (no script, no style sheet, font or image to fetch: its Content-Security-Policy allows nothing to load).
 * Questions, references and answers are untrusted text: escaped wherever they appear.
 */
import type { EvalResult, Flip, StrategySummary } from './run.js';

export interface ReportOptions {
  /** The server the sessions are on: flips link to `<baseUrl>/#/sessions/<id>` (its web UI). */
  baseUrl?: string;
  /** When it was made (an ISO time); now unless given. */
  date?: string;
}

const percent = (x: number) => `${Math.round(x * 1000) / 10} %`;
const dollars = (usd: number, priced: boolean) => `$${usd.toFixed(4)}${priced ? '' : ' (lower bound)'}`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const count = (n: number) => n.toLocaleString('en-US');

function sessionUrl(baseUrl: string | undefined, id: string): string | undefined {
  if (!baseUrl || !/^https?:\/\//i.test(baseUrl) || !/^ses_[0-9A-Za-z]+$/.test(id)) return undefined;
  return `${baseUrl.replace(/\/+$/, '')}/#/sessions/${id}`;
}

/** One line of untrusted text as literal Markdown. */
function md(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_[\]<>#|~&]/g, '\\$&');
}

function settingsLine(result: EvalResult): string {
  const s = result.settings;
  return [
    `${result.questions} questions`,
    `strategies: ${s.strategies.join(', ')}`,
    `${s.rounds} rounds`,
    s.slots ? `panel: slots ${s.slots.join(', ')}` : 'panel: every slot',
    ...(s.agreement !== undefined ? [`adaptive agreement ${s.agreement}`] : []),
  ].join('; ');
}

export function evalMarkdown(result: EvalResult, options: ReportOptions = {}): string {
  const out = [
    `# Evaluation ${md(result.runId)}`,
    '',
    `_${settingsLine(result)}. Made ${options.date ?? new Date().toISOString()}._`,
    '',
  ];
  out.push(
    '| Strategy | Accuracy | 95 % interval | Right | Cost | Tokens | Wall time |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const s of result.strategies) {
    out.push(
      `| ${md(s.label)} | ${percent(s.accuracy)} | ${percent(s.interval.low)}–${percent(s.interval.high)} | ${s.correct}/${s.n} | ${dollars(s.costUsd, s.priced)} | ${count(s.tokens)} | ${seconds(s.wallMs)} |`,
    );
  }
  out.push('');
  if (result.grading.calls > 0) {
    out.push(
      `Grading: ${result.grading.calls} judge calls, ${count(result.grading.tokens)} tokens, ${dollars(result.grading.costUsd, result.grading.priced)} (not in the strategies' cost).`,
      '',
    );
  }
  const { rightToWrong, wrongToRight } = result.flips;
  out.push('## Where the debate changed the vote’s correctness', '');
  const flipLines = (list: readonly Flip[]) => {
    if (list.length === 0) return ['_None._', ''];
    return [
      ...list.map((f) => {
        const url = sessionUrl(options.baseUrl, f.sessionId);
        const link = url ? `[${f.sessionId}](${url})` : `\`${f.sessionId}\``;
        return `- **${md(f.questionId)}** ${md(f.question)} — reference ${md(f.reference)}; vote ${md(f.vote ?? 'none')}; debate ${md(f.debate ?? 'none')} — ${link}`;
      }),
      '',
    ];
  };
  out.push('### Right → wrong (the debate lost the vote’s right answer)', '', ...flipLines(rightToWrong));
  out.push('### Wrong → right (the debate fixed the vote)', '', ...flipLines(wrongToRight));
  return `${out.join('\n').trimEnd()}\n`;
}

const html = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const ROW = 30;
const LABEL = 260;
const WIDTH = 720;
const BAR = WIDTH - LABEL - 90;

/** A horizontal bar chart, one bar per strategy; `whiskers` draws each one's interval. */
function chart(
  title: string,
  strategies: readonly StrategySummary[],
  value: (s: StrategySummary) => number,
  text: (s: StrategySummary) => string,
  whiskers?: (s: StrategySummary) => { low: number; high: number },
  max?: number,
): string {
  const top = max ?? Math.max(1e-12, ...strategies.map(value));
  const height = strategies.length * ROW + 36;
  const x = (v: number) => LABEL + (BAR * Math.max(0, v)) / top;
  const bars = strategies
    .map((s, i) => {
      const y = 28 + i * ROW;
      const w = whiskers?.(s);
      return [
        `<text x="${LABEL - 8}" y="${y + 15}" text-anchor="end">${html(s.label)}</text>`,
        `<rect class="bar ${html(s.strategy.split(':')[0]!)}" x="${LABEL}" y="${y + 3}" width="${(x(value(s)) - LABEL).toFixed(1)}" height="${ROW - 10}"><title>${html(text(s))}</title></rect>`,
        ...(w
          ? [
              `<line class="whisker" x1="${x(w.low).toFixed(1)}" x2="${x(w.high).toFixed(1)}" y1="${y + 13}" y2="${y + 13}"/>`,
              `<line class="whisker" x1="${x(w.low).toFixed(1)}" x2="${x(w.low).toFixed(1)}" y1="${y + 7}" y2="${y + 19}"/>`,
              `<line class="whisker" x1="${x(w.high).toFixed(1)}" x2="${x(w.high).toFixed(1)}" y1="${y + 7}" y2="${y + 19}"/>`,
            ]
          : []),
        `<text x="${Math.max(x(value(s)), w ? x(w.high) : 0) + 6}" y="${y + 15}">${html(text(s))}</text>`,
      ].join('');
    })
    .join('\n');
  return `<figure><svg role="img" aria-label="${html(title)}" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" xmlns="http://www.w3.org/2000/svg">
<text class="title" x="0" y="16">${html(title)}</text>
<line class="axis" x1="${LABEL}" x2="${LABEL}" y1="24" y2="${height - 6}"/>
${bars}
</svg></figure>`;
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2430;background:#fff}
table{border-collapse:collapse;margin:1rem 0}th,td{padding:.3rem .7rem;border-bottom:1px solid #d6dbe3;text-align:right}
th:first-child,td:first-child{text-align:left}svg text{font:13px system-ui,sans-serif;fill:#1d2430}svg .title{font-weight:600}
.bar{fill:#5b7fbf}.bar.vote{fill:#3d9a6d}.bar.debate{fill:#c0664a}.bar.adaptive{fill:#8a62b8}.whisker{stroke:#1d2430;stroke-width:1.5}
.axis{stroke:#8a93a3}figure{margin:1.5rem 0}.muted{color:#5b6472}li{margin:.3rem 0}
@media (prefers-color-scheme:dark){body{background:#12161d;color:#e4e8ee}svg text{fill:#e4e8ee}.whisker{stroke:#e4e8ee}th,td{border-color:#2c3440}a{color:#8fb4ff}}`;

export function evalHtml(result: EvalResult, options: ReportOptions = {}): string {
  const rows = result.strategies
    .map(
      (s) =>
        `<tr><td>${html(s.label)}</td><td>${percent(s.accuracy)}</td><td>${percent(s.interval.low)}–${percent(s.interval.high)}</td><td>${s.correct}/${s.n}</td><td>${html(dollars(s.costUsd, s.priced))}</td><td>${count(s.tokens)}</td><td>${seconds(s.wallMs)}</td></tr>`,
    )
    .join('\n');
  const flips = (list: readonly Flip[]) =>
    list.length === 0
      ? '<p class="muted">None.</p>'
      : `<ul>${list
          .map((f) => {
            const url = sessionUrl(options.baseUrl, f.sessionId);
            const link = url ? `<a href="${html(url)}">${html(f.sessionId)}</a>` : `<code>${html(f.sessionId)}</code>`;
            return `<li><strong>${html(f.questionId)}</strong> ${html(f.question)} — reference <q>${html(f.reference)}</q>; vote <q>${html(f.vote ?? 'none')}</q>; debate <q>${html(f.debate ?? 'none')}</q> — ${link}</li>`;
          })
          .join('\n')}</ul>`;
  const s = result.strategies;
  const grading =
    result.grading.calls > 0
      ? `<p>Grading: ${result.grading.calls} judge calls, ${count(result.grading.tokens)} tokens, ${html(dollars(result.grading.costUsd, result.grading.priced))} (not in the strategies' cost).</p>`
      : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Evaluation ${html(result.runId)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Evaluation ${html(result.runId)}</h1>
<p class="muted">${html(settingsLine(result))}. Made ${html(options.date ?? new Date().toISOString())}.</p>
<table>
<thead><tr><th>Strategy</th><th>Accuracy</th><th>95 % interval</th><th>Right</th><th>Cost</th><th>Tokens</th><th>Wall time</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
${grading}
${chart(
  'Accuracy, with its 95 % interval',
  s,
  (x) => x.accuracy,
  (x) => percent(x.accuracy),
  (x) => x.interval,
  1,
)}
${chart(
  'Cost (USD)',
  s,
  (x) => x.costUsd,
  (x) => dollars(x.costUsd, x.priced),
)}
${chart(
  'Tokens',
  s,
  (x) => x.tokens,
  (x) => count(x.tokens),
)}
${chart(
  'Wall time',
  s,
  (x) => x.wallMs,
  (x) => seconds(x.wallMs),
)}
<h2>Where the debate changed the vote’s correctness</h2>
<h3>Right → wrong (the debate lost the vote’s right answer)</h3>
${flips(result.flips.rightToWrong)}
<h3>Wrong → right (the debate fixed the vote)</h3>
${flips(result.flips.wrongToRight)}
</body>
</html>
`;
}
