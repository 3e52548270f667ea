import { useEffect, useRef, useState } from 'preact/hooks';
import { ConsiliumError, type User } from '../../sdk/src/index.js';
import { Ask } from './Ask.js';
import { consilium, onUnauthorized } from './api.js';
import { History, openSearch } from './History.js';
import { Login } from './Login.js';
import { Providers } from './Providers.js';
import { navSection, type Route, useRoute } from './router.js';
import { SessionPage } from './SessionPage.js';
import { Toasts } from './Toasts.js';
import { Tokens } from './Tokens.js';
import { TrackRecord } from './TrackRecord.js';
import { applyTheme, storedTheme, type ThemeChoice } from './theme.js';
import { Users } from './Users.js';

/** Who is signed in: a user, nobody (show sign-in), or `local` when the server has no accounts yet (501). */
type Who = { state: 'loading' } | { state: 'signed-out' } | { state: 'user'; user: User } | { state: 'local' };

export function App() {
  const [who, setWho] = useState<Who>({ state: 'loading' });
  const route = useRoute();
  // The last page that was not a session, for the nav to say where a session belongs.
  const lastPage = useRef<Route['name'] | undefined>(undefined);
  const section = navSection(route, lastPage.current);
  if (route.name !== 'session') lastPage.current = route.name;
  useEffect(() => {
    consilium.auth.me().then(
      (user) => setWho({ state: 'user', user }),
      (err: unknown) =>
        setWho(err instanceof ConsiliumError && err.status === 501 ? { state: 'local' } : { state: 'signed-out' }),
    );
    return onUnauthorized(() => setWho({ state: 'signed-out' }));
  }, []);
  useEffect(() => {
    // Ctrl/Cmd+K: search history from anywhere.
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        openSearch();
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);

  if (who.state === 'loading') return <main id="main" class="loading" aria-busy="true" />;
  if (who.state === 'signed-out') return <Login onSignedIn={(user) => setWho({ state: 'user', user })} />;
  const user = who.state === 'user' ? who.user : undefined;
  const signOut = async () => {
    await consilium.auth.logout().catch(() => undefined);
    setWho({ state: 'signed-out' });
    location.hash = '#/';
  };
  return (
    <>
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header class="top">
        <a class="brand" href="#/">
          <span aria-hidden="true">⚖</span> Consilium
        </a>
        <nav aria-label="Main">
          <NavLink section={section} name="ask" href="#/">
            Ask
          </NavLink>
          <NavLink section={section} name="history" href="#/sessions">
            History
          </NavLink>
          <NavLink section={section} name="providers" href="#/providers">
            Providers
          </NavLink>
          {user && (
            <NavLink section={section} name="tokens" href="#/tokens">
              Tokens
            </NavLink>
          )}
          {user?.role === 'admin' && (
            <NavLink section={section} name="users" href="#/users">
              Users
            </NavLink>
          )}
        </nav>
        <div class="who">
          <ThemeSwitch />
          {user ? (
            <>
              <span class="small" data-testid="username">
                {user.username}
                {user.role === 'admin' ? ' (admin)' : ''}
              </span>
              <button type="button" onClick={signOut}>
                Sign out
              </button>
            </>
          ) : (
            <span class="small muted">no accounts on this server</span>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Page route={route} user={user} />
      </main>
      <Toasts />
    </>
  );
}

function Page({ route, user }: { route: Route; user?: User }) {
  switch (route.name) {
    case 'session':
      return <SessionPage key={route.id} id={route.id} user={user} />;
    case 'history':
      return <History q={route.q} user={user} />;
    case 'tokens':
      return <Tokens />;
    case 'users':
      return user?.role === 'admin' ? <Users self={user} /> : <p>Only admins manage users.</p>;
    case 'providers':
      return (
        <>
          <Providers />
          <TrackRecord />
        </>
      );
    default:
      return <Ask />;
  }
}

function NavLink({
  section,
  name,
  href,
  children,
}: {
  section: Route['name'];
  name: Route['name'];
  href: string;
  children: string;
}) {
  const current = section === name;
  return (
    <a href={href} aria-current={current ? 'page' : undefined}>
      {children}
    </a>
  );
}

function ThemeSwitch() {
  const [choice, setChoice] = useState<ThemeChoice>(storedTheme);
  return (
    <label class="theme small">
      <span class="sr-only">Theme</span>
      <select
        value={choice}
        onChange={(e) => {
          const next = e.currentTarget.value as ThemeChoice;
          applyTheme(next);
          setChoice(next);
        }}
      >
        <option value="system">System theme</option>
        <option value="light">Light</option>
        <option value="dark">Dark</option>
      </select>
    </label>
  );
}
