// UI actions on the VS Code workbench (code-server) through playwright, as a user performs them:
// keyboard shortcuts, the command palette, the mouse. Selectors are VS Code's own DOM classes.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

class Workbench {
  constructor(page, screenshotDir) {
    this.page = page;
    this.screenshotDir = screenshotDir;
    fs.mkdirSync(screenshotDir, { recursive: true });
  }

  async screenshot(name) {
    const file = path.join(this.screenshotDir, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  async open(url) {
    await this.page.goto(url);
    await this.page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    // The explorer lists the folder once the workspace is really loaded.
    await this.page.waitForSelector('.explorer-folders-view .monaco-list-row', { timeout: 30_000 });
  }

  /** Quick Open (Ctrl+P) a workspace file by name and wait for its editor tab. */
  async openFile(name) {
    await this.page.keyboard.press('Control+P');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(name);
    // Enter picks the focused row: wait until the filtered list has put the file there (the
    // recently-opened list shown first would pick another file).
    const row = this.page.locator('.quick-input-list .monaco-list-row.focused', { hasText: name }).first();
    await row.waitFor({ state: 'visible', timeout: 15_000 });
    await this.page.keyboard.press('Enter');
    await this.page
      .locator('.tabs-container .tab.active', { hasText: name })
      .waitFor({ state: 'visible', timeout: 15_000 });
    await this.page.locator('.editor-instance .monaco-editor .view-lines').first().waitFor();
    await this.focusEditor();
  }

  async focusEditor() {
    // Clicking the editor's text area would move the cursor; the focus command does not.
    await this.runCommandById('workbench.action.focusActiveEditorGroup');
  }

  /** Runs a command by its palette label, e.g. "opscope: Show Model Summary". */
  async runCommand(label) {
    await this.page.keyboard.press('F1');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`>${label}`);
    const row = this.page.locator('.quick-input-list .monaco-list-row.focused', { hasText: label }).first();
    await row.waitFor({ state: 'visible', timeout: 15_000 });
    await this.page.keyboard.press('Enter');
  }

  async runCommandById(id) {
    // The palette matches command IDs too only in some versions; go through the keyboard instead.
    if (id === 'workbench.action.focusActiveEditorGroup') {
      await this.page.keyboard.press('Control+1');
      return;
    }
    throw new Error(`no shortcut for ${id}`);
  }

  /** Puts the cursor at 1-based `line`, `column` with Ctrl+G ("line:column"). */
  async goTo(line, column) {
    await this.page.keyboard.press('Control+G');
    const input = this.page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible' });
    await input.fill(`:${line}:${column}`);
    await this.page.waitForTimeout(150);
    await this.page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden' });
  }

  /** The text of the active editor, line by line, as rendered (viewport only). */
  async visibleLines() {
    const lines = this.page.locator('.editor-instance .monaco-editor .view-lines .view-line');
    const tops = await lines.evaluateAll((els) =>
      els.map((e) => ({ top: parseFloat(e.style.top), text: e.textContent.replace(/\u00a0/g, ' ') })),
    );
    return tops.sort((a, b) => a.top - b.top).map((t) => t.text);
  }

  /** Triggers completion (Ctrl+Space) and returns the rows of the suggest widget. */
  async complete(timeout = 15_000) {
    await this.page.keyboard.press('Control+Space');
    const widget = this.page.locator('.editor-widget.suggest-widget.visible');
    await widget.waitFor({ state: 'visible', timeout });
    // "Loading..." first, then the rows.
    const rows = widget.locator('.monaco-list-row');
    await rows.first().waitFor({ state: 'visible', timeout });
    return rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') || e.textContent));
  }

  /** Hovers the mouse over the first rendered occurrence of `text` and returns the hover text. */
  async hoverText(text, timeout = 15_000) {
    const box = await this.page.evaluate((needle) => {
      const lines = document.querySelectorAll('.editor-instance .monaco-editor .view-lines .view-line');
      for (const line of lines) {
        const full = line.textContent.replace(/\u00a0/g, ' ');
        const at = full.indexOf(needle);
        if (at < 0) continue;
        // Walk the text nodes to the character in the middle of the needle.
        const target = at + Math.floor(needle.length / 2);
        const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
        let offset = 0;
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const len = n.textContent.length;
          if (offset + len > target) {
            const range = document.createRange();
            range.setStart(n, target - offset);
            range.setEnd(n, target - offset + 1);
            const r = range.getBoundingClientRect();
            return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
          }
          offset += len;
        }
      }
      return null;
    }, text);
    if (!box) throw new Error(`"${text}" is not visible in the editor`);
    // Approach along the needle's own line, from the blank to its right: a path from below
    // crossed other keys (`op_state_spec` under the pattern), whose hover could open first
    // and cover the needle, so the mouse then rested on that hover instead.
    await this.page.mouse.move(box.x + 600, box.y);
    await this.page.mouse.move(box.x, box.y, { steps: 4 });
    const hover = this.page.locator('.monaco-hover:not(.hidden)').first();
    await hover.waitFor({ state: 'visible', timeout });
    // The hover fills in once the server answered ("Loading..." first).
    await this.page.waitForFunction(
      () => {
        const h = document.querySelector('.monaco-hover:not(.hidden)');
        return h && !/Loading\.\.\./.test(h.textContent) && h.textContent.trim().length > 0;
      },
      null,
      { timeout },
    );
    await this.page.waitForTimeout(400); // the hover fades in
    return hover.innerText();
  }

  /** Opens the Problems panel (Ctrl+Shift+M) and returns its rows' text. */
  async problems() {
    await this.page.keyboard.press('Control+Shift+M');
    const panel = this.page.locator('.markers-panel');
    await panel.waitFor({ state: 'visible', timeout: 10_000 });
    return panel.locator('.monaco-list-row').evaluateAll((els) => els.map((e) => e.textContent));
  }

  async closePanel() {
    await this.page.keyboard.press('Control+J');
  }

  /** Texts of the visible notification toasts. */
  async notifications() {
    return this.page.locator('.notification-toast').evaluateAll((els) => els.map((e) => e.innerText));
  }

  /**
   * Texts of every notification still held in the notification center (the bell), which keeps
   * what a toast showed after the toast is gone: VS Code hides toasts on a timer, and shows
   * none while the center is open. Opens the center, reads it and closes it again.
   */
  async notificationCenter() {
    await this.runCommand('Notifications: Show Notifications');
    const center = this.page.locator('.notifications-center');
    await center.waitFor({ state: 'visible', timeout: 10_000 });
    const texts = await center.locator('.monaco-list-row').evaluateAll((els) => els.map((e) => e.innerText));
    await this.runCommand('Notifications: Hide Notifications');
    await center.waitFor({ state: 'hidden', timeout: 10_000 }).catch(() => {});
    return texts;
  }

  /**
   * Answers VS Code's "Do you trust the authors of the files in this folder?" dialog, shown when
   * a folder whose trust is undecided opens: `trust` picks "Yes, I trust the authors", else
   * "No, I don't trust the authors" (Restricted Mode). The parent-folder box stays unticked.
   */
  async answerTrustPrompt(trust, timeout = 30_000) {
    const dialog = this.page.locator('.monaco-dialog-box', { hasText: 'Do you trust the authors' });
    await dialog.waitFor({ state: 'visible', timeout });
    const label = trust ? 'Yes, I trust the authors' : "No, I don't trust the authors";
    await dialog.locator('.monaco-button', { hasText: label }).first().click();
    await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
  }

  /** Trusts the open folder later, as a user in Restricted Mode does: the Workspace Trust editor. */
  async trustFolder() {
    await this.runCommand('Workspaces: Manage Workspace Trust');
    const trust = this.page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust( Folder)?$/ }).first();
    await trust.waitFor({ state: 'visible', timeout: 15_000 });
    await trust.click();
    await this.page
      .locator('.workspace-trust-editor', { hasText: 'You trust the authors' })
      .first()
      .waitFor({ state: 'visible', timeout: 15_000 });
  }

  /** Clicks `button` on the notification toast whose text matches `text`. */
  async clickNotificationButton(text, button, timeout = 15_000) {
    const toast = this.page.locator('.notification-toast', { hasText: text }).first();
    await toast.waitFor({ state: 'visible', timeout });
    await toast.locator('.monaco-button', { hasText: button }).first().click();
  }

  async statusBarText() {
    return this.page.locator('.statusbar').innerText();
  }

  /** The code lenses of the active editor (the lines of text above a range), as shown. */
  async codeLenses() {
    return this.page.locator('.editor-instance .monaco-editor .codelens-decoration').allInnerTexts();
  }
}

/** Polls `fn` until it returns a truthy value or `timeout` ms pass; returns the last value. */
async function eventually(fn, { timeout = 30_000, interval = 500 } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  let lastError;
  while (Date.now() < deadline) {
    try {
      last = await fn();
      if (last) return last;
    } catch (e) {
      lastError = e;
    }
    await new Promise((r) => setTimeout(r, interval));
  }
  if (lastError) throw lastError;
  return last;
}

module.exports = { Workbench, eventually };
