import { render } from 'preact';
import { App } from './App.js';
import { applyTheme, storedTheme } from './theme.js';
import './styles.css';

// Before the first render, so a stored dark theme never flashes light.
applyTheme(storedTheme());
render(<App />, document.getElementById('app')!);
