/**
 * `consilium ask`: one model's answer (slot 1 by default, or `--slot N` / `--provider NAME`); `--wiki SOURCE`
 * grounds it in a wiki source of the server's, its sources printed after the answer.
 */
import { inert, jsonLine, oneLine, slotColour } from '../../terminal/terminal.js';
import { UsageError } from '../../terminal/usage.js';
import { intFlag, onlyFlags, stringFlag } from '../args.js';
import { type Command, EXIT, GLOBAL } from '../context.js';
import { question, slotProvider } from '../question.js';
import { renderSources } from '../sources-view.js';

/** Its own options, beyond the global ones. */
const OPTIONS = ['slot', 'provider', 'wiki'];

export const ask: Command = {
  options: OPTIONS,
  async run(ctx) {
    onlyFlags(ctx.parsed, [...GLOBAL, ...OPTIONS]);
    const slot = intFlag(ctx.parsed, 'slot', 1, 99);
    const provider = stringFlag(ctx.parsed, 'provider');
    if (slot !== undefined && provider !== undefined) throw new UsageError('give --slot or --provider, not both');
    const text = question(ctx, 'ask');
    const consilium = ctx.consilium();
    const chosen = slot === undefined ? provider : await slotProvider(consilium, slot);
    const wiki = stringFlag(ctx.parsed, 'wiki');
    const result = await consilium.ask(text, {
      ...(chosen !== undefined && { provider: chosen }),
      ...(wiki !== undefined && { grounding: { source: wiki } }),
    });
    if (ctx.json) {
      ctx.out(jsonLine(result));
      return EXIT.ok;
    }
    const { answer } = result;
    ctx.out(`${ctx.paint(slotColour(answer.slot), `${answer.slot} ${oneLine(answer.provider)}/${oneLine(answer.model)}`)}\n`);
    ctx.out(`${inert(answer.text).trim()}\n`);
    if (result.grounding) ctx.out(renderSources(result.grounding, ctx.paint));
    ctx.out(`${ctx.paint('dim', `session ${result.sessionId} · ${answer.usage.totalTokens} tokens · ${answer.latencyMs} ms`)}\n`);
    return EXIT.ok;
  },
};
