import { render } from 'preact';
import { App } from './App.js';
import { applySlotColours } from './slots.js';
import { applyTheme, storedTheme } from './theme.js';
import './styles.css';

// Before the first render, so a stored dark theme never flashes light.
applyTheme(storedTheme());
applySlotColours(document.documentElement);
render(<App />, document.getElementById('app')!);
