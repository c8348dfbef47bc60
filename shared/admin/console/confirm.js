/** A modal confirmation for actions that cannot be taken back (a rotated secret, a disabled or removed subscription). */

import { h } from './dom.js';
import { focusAt, focusLost, focusPlace } from './focus.js';

/**
 * Asks the operator to confirm an action in a modal dialog, in the console's style (as its
 * admin-token prompt); resolves true when the action's button is pressed, false on Cancel or
 * Escape. The dialog is removed once answered. Cancel has the focus: Enter alone does nothing.
 * Closed, it gives the focus back to the control that opened it, or, when a redraw replaced that
 * control meanwhile, to the same action of the same row (`data-item`, `data-focus`: focus.js).
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
  // Where the control that opened the dialog sits (its row and action), for when a refresh
  // redrew that row while the dialog was open: the browser's focus return then finds nothing.
  const opener = focusPlace(document.body, document.activeElement);
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        dialog.remove();
        if (opener && focusLost()) focusAt(document.body, opener);
        resolve(dialog.returnValue === 'confirm');
      },
      { once: true },
    );
    dialog.returnValue = '';
    dialog.showModal();
    cancel.focus();
  });
}
