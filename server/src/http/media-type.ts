import { routes } from '../generated/routes.js';

/** The media types each operation's body accepts, by `METHOD /hono/:path`. */
const accepted = new Map<string, string[]>();
for (const route of Object.values(routes) as { method: string; path: string; request?: { body?: { content: object } } }[]) {
  const content = route.request?.body?.content;
  if (content === undefined) continue;
  accepted.set(`${route.method.toUpperCase()} ${route.path.replace(/\{(\w+)\}/g, ':$1')}`, Object.keys(content));
}

/** The body media types the contract declares for a request, by its method and Hono route path. */
export function acceptedMediaTypes(method: string, routePath: string): string[] {
  return accepted.get(`${method.toUpperCase()} ${routePath}`) ?? ['application/json'];
}
