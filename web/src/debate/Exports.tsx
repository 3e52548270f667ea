import { useState } from 'preact/hooks';
import { type ConsiliumError, exportSessionJson, exportSessionMarkdown } from '../../../sdk/src/index.js';
import { client, consilium } from '../api.js';
import { ErrorNote } from '../components.js';

/** Saves a blob under `name` through a temporary object URL (no request leaves the page). */
function save(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const fileName = (response: Response | undefined, fallback: string) =>
  /filename="?([^";]+)"?/.exec(response?.headers.get('content-disposition') ?? '')?.[1] ?? fallback;

/** Markdown and JSON exports, exactly the bytes the API serves. */
export function Exports({ sessionId }: { sessionId: string }) {
  const [error, setError] = useState<ConsiliumError>();
  const download = async (format: 'md' | 'json') => {
    setError(undefined);
    try {
      const options = { client, path: { sessionId }, parseAs: 'blob' as const };
      let response: Response | undefined;
      const call: Promise<{ data?: unknown; error?: unknown; response?: Response }> =
        format === 'md' ? exportSessionMarkdown(options) : exportSessionJson(options);
      // `parseAs: 'blob'` keeps the served bytes as they are (the SDK types the data as the parsed body).
      const blob = (await consilium.settle(
        call.then((r) => {
          response = r.response;
          return r;
        }),
      )) as Blob;
      save(blob, fileName(response, `consilium-${sessionId}.${format}`));
    } catch (err) {
      setError(err as ConsiliumError);
    }
  };
  return (
    <span class="exports">
      <button type="button" onClick={() => download('md')}>
        Export Markdown
      </button>
      <button type="button" onClick={() => download('json')}>
        Export JSON
      </button>
      <ErrorNote error={error} />
    </span>
  );
}
