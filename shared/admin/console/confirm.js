/** A modal confirmation for actions that cannot be taken back (a rotated secret, a disabled or removed subscription). */

import { h } from './dom.js';

/**
 * Asks the operator to confirm an action in a modal dialog, in the console's style (as its
 * admin-token prompt); resolves true when the action's button is pressed, false on Cancel or
 * Escape. The dialog is removed once answered. Cancel has the focus: Enter alone does nothing.
 * @param {{ title: string, message: string, action: string }} ask what is asked, what follows, the label of the button that does it
 * @returns {Promise<boolean>}
 */
export function confirmAction({ title, message, action }) {
  const titleId = `confirm-title-${Math.random().toString(36).slice(2)}`;
  const cancel = h('button', { type: 'submit', value: 'cancel', autofocus: true }, 'Cancel');
  const dialog = /** @type {HTMLDialogElement} */ (
    h(
      'dialog',
      { class: 'confirm', 'aria-labelledby': titleId },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: titleId }, title),
        h('p', {}, message),
        h(
          'div',
          { class: 'actions' },
          h('button', { type: 'submit', value: 'confirm', class: 'danger' }, action),
          cancel,
        ),
      ),
    )
  );
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        dialog.remove();
        resolve(dialog.returnValue === 'confirm');
      },
      { once: true },
    );
    dialog.returnValue = '';
    dialog.showModal();
    cancel.focus();
  });
}
