import type { Action, Citation, Grounding, GroundingPage } from '../../../sdk/src/index.js';
import { visibleControls } from '../../../sdk/src/terminal/terminal.js';

/** Only an http(s) URL becomes a link: a page's URL comes from the wiki's own siteinfo, which is untrusted. */
function safeHref(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** One source as a link to the revision the panel read (text only when its URL is not http(s)). */
export function SourceLink({ page }: { page: GroundingPage }) {
  const href = safeHref(page.url);
  const label = `[${page.n}] ${visibleControls(page.title)}`;
  return href ? (
    <a
      href={href}
      target="_blank"
      rel="noopener noreferrer nofollow"
      data-testid="source-link"
      title={`revision ${page.revisionId}`}
    >
      {label}
    </a>
  ) : (
    <span data-testid="source-link">{label}</span>
  );
}

function why(c: Citation): string {
  return c.reason === 'quote_not_found' ? 'quotation not in the page' : 'page not retrieved in this session';
}

/** An action's sources: the pages its verified citations rest on, as links. */
export function ActionSources({ action, grounding }: { action: Action; grounding: Grounding | undefined }) {
  if (!grounding || !action.sources?.length) return null;
  const pages = action.sources.flatMap((n) => grounding.pages.filter((p) => p.n === n));
  return (
    <p class="small sources-inline" data-testid="action-sources">
      Rests on:{' '}
      {pages.map((p, i) => (
        <span key={p.n}>
          {i > 0 ? ', ' : ''}
          <SourceLink page={p} />
        </span>
      ))}
    </p>
  );
}

/**
 * What the panel read from the wiki: every source as a link to its revision, each answer's citations beside it
 * (verified ones linked, unverified ones marked and never linked), and what was looked up when. All of it
 * (titles, quotations, notes) is untrusted text, rendered as text.
 */
export function SourcesSection({ grounding }: { grounding: Grounding }) {
  const g = grounding;
  const byAnswer = new Map<string, Citation[]>();
  for (const c of g.citations) {
    const key = c.round === 0 ? `Verdict (slot ${c.slot})` : `Round ${c.round}, slot ${c.slot}`;
    byAnswer.set(key, [...(byAnswer.get(key) ?? []), c]);
  }
  return (
    <section class="card sources" aria-labelledby="sources-h" data-testid="sources">
      <h2 id="sources-h">
        Sources{' '}
        <span class={`pill grounding-${g.status}`}>
          {g.source}: {g.status}
        </span>
      </h2>
      {g.note && (
        <p class="degraded small" role="status" data-testid="grounding-note">
          {visibleControls(g.note)}
        </p>
      )}
      <p class="small muted">
        {g.verifiedCitations} verified, {g.unverifiedCitations} unverified citations · {g.usage.requests} wiki requests,{' '}
        {(g.usage.bytes / 1024).toFixed(1)} kB, {g.usage.ms} ms
      </p>
      {g.pages.length > 0 ? (
        <ol class="source-list">
          {g.pages.map((p) => (
            <li key={p.n} value={p.n}>
              <SourceLink page={p} /> <span class="muted small">revision {p.revisionId}</span>
            </li>
          ))}
        </ol>
      ) : (
        <p class="muted small">No page was read.</p>
      )}
      {byAnswer.size > 0 && (
        <details open>
          <summary>Citations by answer</summary>
          <ul class="citations">
            {[...byAnswer].map(([where, list]) => (
              <li key={where}>
                <strong>{where}:</strong>{' '}
                {list.map((c, i) => {
                  const page = c.verified ? g.pages.find((p) => p.n === c.source) : undefined;
                  return (
                    <span key={i} class={c.verified ? 'citation verified' : 'citation unverified'} data-testid="citation">
                      {i > 0 ? ' · ' : ''}
                      {page ? <SourceLink page={page} /> : <span title={why(c)}>{visibleControls(c.ref)}</span>}
                      {c.quote ? ` “${visibleControls(c.quote)}”` : ''}
                      {!c.verified && <span class="pill pill-failed"> unverified: {why(c)}</span>}
                    </span>
                  );
                })}
              </li>
            ))}
          </ul>
        </details>
      )}
      {g.lookups.length > 0 && (
        <details>
          <summary>Lookups</summary>
          <ul class="small">
            {g.lookups.map((l, i) => (
              <li key={i}>
                {new Date(l.at).toLocaleTimeString()} · {l.slot ? `slot ${l.slot}, round ${l.round}` : 'before round 1'} ·{' '}
                {l.tool} “{visibleControls(l.input)}” ·{' '}
                {l.ok ? `${l.pages?.length ?? 0} page(s)` : `failed: ${visibleControls(l.error ?? '')}`}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}
