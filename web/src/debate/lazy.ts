import { lazyComponent } from '../components.js';
import type { Run } from './runner.js';

/** The session view, loaded when first shown: it carries the Markdown parser and sanitizer. */
export const LazySessionPanel = lazyComponent<{ run: Run }>(() => import('./SessionPanel.js').then((m) => m.SessionPanel));
