// What a login page asks for, read in the page itself: the visible inputs and what each is for (identifier,
// password, one-time code), buttons that choose an account or a way to sign in, single sign-on buttons, the
// button that submits, and an error the site shows. `discoverInPage` runs inside the page (Playwright
// serialises it), so it uses nothing from outside its own body.

export type FieldKind = 'identifier' | 'password' | 'code' | 'text';

export interface PageField {
  kind: FieldKind;
  /** A CSS selector that finds exactly this input. */
  selector: string;
  name: string;
  label: string;
  /** The input's HTML type. */
  inputType: string;
  placeholder: string;
  required: boolean;
}

export interface PageButton {
  selector: string;
  label: string;
}

export interface PageSso extends PageButton {
  provider: string;
}

export interface PageChoice extends PageButton {
  kind: 'account' | 'other' | 'mfa';
  mfaType?: 'sms' | 'call' | 'email' | 'totp' | 'push';
}

export interface PageForm {
  url: string;
  title: string;
  fields: PageField[];
  submit: PageButton | null;
  sso: PageSso[];
  choices: PageChoice[];
  /** The text of an error the site shows (role=alert, an error class), if any. */
  error: string | null;
}

export function discoverInPage(): PageForm {
  const visible = (el: Element): boolean => {
    const box = (el as HTMLElement).getBoundingClientRect();
    const style = getComputedStyle(el);
    return box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
  };
  const text = (el: Element | null | undefined): string => (el?.textContent ?? '').replace(/\s+/g, ' ').trim();
  const selectorOf = (el: Element): string => {
    const css = (window as unknown as { CSS: { escape(s: string): string } }).CSS;
    if (el.id && document.querySelectorAll(`#${css.escape(el.id)}`).length === 1) return `#${css.escape(el.id)}`;
    const name = el.getAttribute('name');
    const tag = el.tagName.toLowerCase();
    if (name && document.querySelectorAll(`${tag}[name="${css.escape(name)}"]`).length === 1) return `${tag}[name="${css.escape(name)}"]`;
    // A path of nth-of-type steps from the nearest ancestor with a unique id (or the body).
    const steps: string[] = [];
    let node: Element | null = el;
    while (node && node !== document.body) {
      if (node !== el && node.id && document.querySelectorAll(`#${css.escape(node.id)}`).length === 1) {
        steps.unshift(`#${css.escape(node.id)}`);
        return steps.join(' > ');
      }
      const parent: Element | null = node.parentElement;
      const same = parent ? Array.from(parent.children).filter((c) => c.tagName === node!.tagName) : [];
      steps.unshift(`${node.tagName.toLowerCase()}${same.length > 1 ? `:nth-of-type(${same.indexOf(node) + 1})` : ''}`);
      node = parent;
    }
    return `body > ${steps.join(' > ')}`;
  };
  const labelOf = (input: HTMLInputElement): string => {
    const byFor = input.id ? document.querySelector(`label[for="${input.id.replace(/"/g, '\\"')}"]`) : null;
    return text(byFor ?? input.closest('label')) || input.getAttribute('aria-label') || input.placeholder || input.name || input.id || input.type;
  };

  const fields: PageField[] = [];
  for (const input of Array.from(document.querySelectorAll('input'))) {
    const type = (input.getAttribute('type') || 'text').toLowerCase();
    if (!['text', 'email', 'password', 'tel', 'number', 'url', ''].includes(type) || input.disabled || input.readOnly || !visible(input)) continue;
    const label = labelOf(input);
    const autocomplete = (input.getAttribute('autocomplete') || '').toLowerCase();
    const hints = `${input.name} ${input.id} ${label} ${input.placeholder} ${autocomplete}`.toLowerCase();
    let kind: FieldKind = 'text';
    if (type === 'password' && !/one-time|otp/.test(autocomplete)) kind = 'password';
    else if (autocomplete === 'one-time-code' || /\b(otp|totp|2fa|mfa|one[- ]time|verification|authenticator|security code|code)\b/.test(hints)) kind = 'code';
    else if (type === 'email' || /username|email/.test(autocomplete) || /user|e-?mail|login|account|identifier|phone/.test(hints)) kind = 'identifier';
    fields.push({
      kind,
      selector: selectorOf(input),
      name: input.name || input.id || kind,
      label,
      inputType: type || 'text',
      placeholder: input.placeholder,
      required: input.required,
    });
  }

  const clickables = Array.from(document.querySelectorAll('button, a[href], input[type=submit], input[type=button], [role=button]')).filter(visible);
  const labelOfButton = (el: Element) => text(el) || (el as HTMLInputElement).value || el.getAttribute('aria-label') || '';
  const sso: PageSso[] = [];
  const choices: PageChoice[] = [];
  let submit: PageButton | null = null;
  const pageText = text(document.body).toLowerCase();
  const chooser = /choose an account|select an account|pick an account|choose your account|which account/.test(pageText);
  const mfaChooser = /(choose|select) (a|how|your) .*(verif|method|way)|verification method|two-step verification options/.test(pageText);
  for (const el of clickables) {
    const label = labelOfButton(el);
    if (!label) continue;
    const sel = selectorOf(el);
    const ssoMatch = /^(?:sign in|log in|login|continue|sign up)\s+(?:with|using|via)\s+(.+)$/i.exec(label);
    if (ssoMatch) {
      sso.push({ selector: sel, label, provider: ssoMatch[1]!.trim().toLowerCase().replace(/[^a-z0-9]+/g, '') });
      continue;
    }
    if (mfaChooser) {
      const l = label.toLowerCase();
      const mfaType = /authenticator|totp|app code/.test(l) ? 'totp' : /text|sms/.test(l) ? 'sms' : /call/.test(l) ? 'call' : /e-?mail/.test(l) ? 'email' : /push|prompt|approve/.test(l) ? 'push' : undefined;
      if (mfaType) {
        choices.push({ selector: sel, label, kind: 'mfa', mfaType });
        continue;
      }
    }
    if (chooser && el.tagName !== 'INPUT' && !/^(sign in|log in|next|continue|submit)$/i.test(label)) {
      choices.push({ selector: sel, label, kind: /another|different|other account|add account/i.test(label) ? 'other' : 'account' });
      continue;
    }
    const isSubmit = (el as HTMLButtonElement).type === 'submit' || /^(sign in|log in|login|next|continue|submit|verify|confirm)$/i.test(label);
    if (isSubmit && !submit) submit = { selector: sel, label };
  }

  const errorEl = Array.from(document.querySelectorAll('[role=alert], .error, .alert-error, .form-error, [aria-live=assertive]')).find((el) => visible(el) && text(el));
  return { url: location.href, title: document.title, fields, submit, sso, choices, error: errorEl ? text(errorEl) : null };
}
