/** The configured wiki sources by name: their reachability for `/providers`, and a grounding per debate. */
import type { Grounding, WikiSourceInfo } from '../../../sdk/src/generated/types.gen.js';
import type { WikiSourceConfig } from '../config/wikis.js';
import { GroundingRun } from './run.js';
import { WikiSource } from './wiki-source.js';

export class WikiSources {
  readonly #sources: Map<string, WikiSource>;

  constructor(configs: readonly WikiSourceConfig[], options: { fetch?: typeof fetch } = {}) {
    this.#sources = new Map(configs.map((c) => [c.name, new WikiSource(c, options)]));
  }

  has(name: string): boolean {
    return this.#sources.has(name);
  }

  get names(): string[] {
    return [...this.#sources.keys()];
  }

  /** Each source's last known state; with `check`, each is asked now (all at once). */
  async info(check = false): Promise<WikiSourceInfo[]> {
    const all = [...this.#sources.values()];
    return check ? Promise.all(all.map((s) => s.check())) : all.map((s) => s.info);
  }

  /** Reads every source's siteinfo (at start); never throws: an unreachable wiki is reported, not fatal. */
  async start(): Promise<void> {
    await this.info(true);
  }

  /**
   * A continued session's grounding, from what is stored: the same numbered sources in its prompts, its citations
   * counted on. A source no longer configured is kept as a name: nothing more is read from it.
   */
  resume(stored: Grounding): GroundingRun {
    const source =
      this.#sources.get(stored.source) ??
      new WikiSource({
        name: stored.source,
        api: 'http://0.0.0.0/unconfigured/api.php',
        userAgent: 'Consilium',
        limits: { pages: 1, bytesPerPage: 200, requestsPerRound: 0, maxResponseBytes: 65_536 },
        timeoutMs: 100,
      });
    return new GroundingRun({ source, from: stored });
  }

  /** The configured source `name`, to query directly (`wiki_query`); undefined for an unknown name. */
  source(name: string): WikiSource | undefined {
    return this.#sources.get(name);
  }

  /** A new debate's grounding in the named source; undefined for an unknown name. */
  grounding(name: string, options: { now?: () => number } = {}): GroundingRun | undefined {
    const source = this.#sources.get(name);
    return source ? new GroundingRun({ source, ...options }) : undefined;
  }
}
