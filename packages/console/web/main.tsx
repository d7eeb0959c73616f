import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { render } from 'preact';
import { App } from './app.tsx';

const root = document.getElementById('app')!;
// the static "Loading…" placeholder of index.html is not Preact's to diff: clear it first
root.textContent = '';
render(<App />, root);
