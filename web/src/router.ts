/** Hash routes (`/#/...`): the API owns root paths such as `/sessions`, so the UI never takes one. */
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { name: 'ask' }
  | { name: 'session'; id: string }
  | { name: 'history'; q: string }
  | { name: 'tokens' }
  | { name: 'users' }
  | { name: 'providers' };

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query);
  switch (parts[0]) {
    case 'sessions':
      return parts[1] ? { name: 'session', id: parts[1] } : { name: 'history', q: params.get('q') ?? '' };
    case 'tokens':
      return { name: 'tokens' };
    case 'users':
      return { name: 'users' };
    case 'providers':
      return { name: 'providers' };
    default:
      return { name: 'ask' };
  }
}

/**
 * The nav item a route belongs to. A session has no nav item of its own: it belongs to where the reader came from, so
 * a debate just started from Ask (or a follow-up asked in it) stays under Ask, and one opened from history, a link or a
 * reload under History. `lastPage` is the last route before it that was not a session.
 */
export function navSection(route: Route, lastPage: Route['name'] | undefined): Route['name'] {
  if (route.name !== 'session') return route.name;
  return lastPage === 'ask' ? 'ask' : 'history';
}

export const sessionHref = (id: string) => `#/sessions/${encodeURIComponent(id)}`;

/** Moves to a route without a history entry (a started debate becoming its session's page). */
export const replaceHash = (hash: string) => history.replaceState(null, '', hash);

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
