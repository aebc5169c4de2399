// Drawing the tree of /memories from the node map the engine's listings filled.
import { basename } from './view-text.js';

const ROOT = '/memories';

/** Redraws `ul` for `state` ({nodes, expanded, selected}); `on` has select, toggle. */
export function renderTree(ul, state, on) {
  const root = state.nodes.get(ROOT);
  if (!root) {
    // The listing failed (storage unavailable): say so rather than "empty".
    const li = item(state, on, { path: ROOT, dir: true, size: '' }, 0);
    const note = document.createElement('div');
    note.className = 'tree-empty';
    note.textContent = 'The memory could not be read.';
    li.append(note);
    ul.replaceChildren(li);
    return;
  }
  ul.replaceChildren(item(state, on, root, 0));
}

function item(state, on, node, depth) {
  const open = node.dir && state.expanded.has(node.path);
  const li = document.createElement('li');
  li.setAttribute('role', 'treeitem');
  li.dataset.path = node.path;
  if (node.dir) li.setAttribute('aria-expanded', String(open));

  const row = document.createElement('div');
  row.className = `row${state.selected === node.path ? ' selected' : ''}`;
  row.style.paddingLeft = `${8 + depth * 14}px`;
  row.title = node.path;

  const caret = document.createElement('span');
  caret.className = `caret${node.dir ? '' : ' none'}${open ? ' open' : ''}`;
  caret.addEventListener('click', (e) => {
    e.stopPropagation();
    if (node.dir && node.path !== ROOT) on.toggle(node.path);
  });

  const icon = document.createElement('span');
  icon.className = node.dir ? (open ? 'icon-dir open' : 'icon-dir') : 'icon-file';

  const name = document.createElement('span');
  name.className = 'name';
  name.textContent = node.path === ROOT ? 'memories' : basename(node.path);

  const size = document.createElement('span');
  size.className = 'size';
  size.textContent = node.size ?? '';

  row.append(caret, icon, name, size);
  row.addEventListener('click', () => on.select(node.path));
  row.addEventListener('dblclick', () => node.dir && node.path !== ROOT && on.toggle(node.path));
  li.append(row);

  if (open) {
    const ul = document.createElement('ul');
    ul.setAttribute('role', 'group');
    const children = (node.children ?? []).map((p) => state.nodes.get(p)).filter(Boolean);
    // In the engine's order (by name, byte order), as the model sees them.
    for (const child of children) ul.append(item(state, on, child, depth + 1));
    if (node.children === undefined && node.path !== ROOT) {
      const more = document.createElement('li');
      more.className = 'row muted loading';
      more.textContent = 'loading…';
      ul.append(more);
    } else if (children.length === 0 && node.path === ROOT) {
      const none = document.createElement('li');
      none.className = 'tree-empty';
      none.textContent = 'No memories yet. Create a file to start.';
      ul.append(none);
    }
    li.append(ul);
  }
  return li;
}
