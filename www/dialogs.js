// One modal <dialog> for the page's questions: a few fields (or just a sentence)
// and a submit button. Resolves with the field values, or null when cancelled.

export function ask({ title, text, fields = [], submit = 'OK', danger = false }) {
  const dialog = document.getElementById('dialog');
  const form = document.createElement('form');
  form.method = 'dialog';
  form.className = 'dialog-form';

  const h = document.createElement('h2');
  h.textContent = title;
  form.append(h);
  if (text) {
    const p = document.createElement('p');
    p.textContent = text;
    form.append(p);
  }
  const inputs = fields.map((f) => {
    const label = document.createElement('label');
    label.textContent = f.label;
    const input = document.createElement(f.textarea ? 'textarea' : 'input');
    input.name = f.name;
    input.value = f.value ?? '';
    input.spellcheck = false;
    if (f.mono || f.textarea) input.className = 'mono';
    if (f.textarea) input.rows = 8;
    label.append(input);
    form.append(label);
    return input;
  });

  const buttons = document.createElement('div');
  buttons.className = 'dialog-buttons';
  const cancel = document.createElement('button');
  cancel.type = 'button';
  cancel.textContent = 'Cancel';
  const ok = document.createElement('button');
  ok.type = 'submit';
  ok.value = 'ok';
  ok.textContent = submit;
  ok.className = danger ? 'danger solid' : 'primary';
  buttons.append(cancel, ok);
  form.append(buttons);
  dialog.replaceChildren(form);

  return new Promise((resolve) => {
    let done = false;
    const finish = (v) => {
      if (done) return;
      done = true;
      if (dialog.open) dialog.close();
      resolve(v);
    };
    cancel.onclick = () => finish(null);
    dialog.oncancel = () => finish(null);
    form.onsubmit = (e) => {
      e.preventDefault();
      finish(Object.fromEntries(inputs.map((i) => [i.name, i.value])));
    };
    dialog.showModal();
    const first = inputs[0];
    if (first) {
      first.focus();
      // Put the caret at the end of a prefilled path, ready to type a name.
      if (first.setSelectionRange) first.setSelectionRange(first.value.length, first.value.length);
    } else {
      ok.focus();
    }
  });
}
