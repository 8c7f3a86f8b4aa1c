// Sign-in form: exchanges a secret API key for a session (HttpOnly cookie + CSRF token). The key
// is cleared from the field as soon as it has been sent.

import { signIn, type Session } from './api.js';
import { busy, byId, errorMessage, setText } from './dom.js';

export class SignInView {
  private readonly form = byId<HTMLFormElement>('sign-in-form');
  private readonly key = byId<HTMLInputElement>('api-key');
  private readonly alert = byId('sign-in-alert');

  constructor(private readonly onSignedIn: (session: Session) => void) {
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const button = this.form.querySelector<HTMLButtonElement>('button[type="submit"]');
      if (button) void busy(button, () => this.submit());
    });
  }

  /** Shows the form, optionally with a message (e.g. "your session has ended"). */
  focus(message?: string): void {
    if (message) this.showError(message);
    else this.hideError();
    this.key.focus();
  }

  private async submit(): Promise<void> {
    const apiKey = this.key.value.trim();
    if (!apiKey) {
      this.showError('Enter your secret API key.');
      this.key.focus();
      return;
    }
    this.hideError();
    try {
      const session = await signIn(apiKey);
      this.key.value = '';
      this.onSignedIn(session);
    } catch (error) {
      this.showError(errorMessage(error));
      this.key.select();
    }
  }

  private showError(message: string): void {
    setText(this.alert, message);
    this.alert.hidden = false;
  }

  private hideError(): void {
    this.alert.hidden = true;
    setText(this.alert, '');
  }
}
