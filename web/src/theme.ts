/** Light or dark: the system's choice unless the user picked one (kept in localStorage). */
export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'consilium.theme';

export const storedTheme = (): ThemeChoice => {
  const value = localStorage.getItem(KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
};

export function applyTheme(choice: ThemeChoice): void {
  if (choice === 'system') {
    delete document.documentElement.dataset.theme;
    localStorage.removeItem(KEY);
  } else {
    document.documentElement.dataset.theme = choice;
    localStorage.setItem(KEY, choice);
  }
}
