// The names box under the metric list: paste names or pick / drop a text or
// JSON file of them; they go into the NameBook (names.ts) and the page
// relabels the open blob's metrics.

import { $, integer } from './dom.js';
import { type NameBook, parseNames } from './names.js';

/** A dropped or picked file of names rather than blobs: text or JSON by its type or extension. */
export function isNamesFile(file: File): boolean {
  return /\.(txt|json)$/i.test(file.name) || file.type.startsWith('text/') || file.type === 'application/json';
}

export class NamesPanel {
  /** `changed` runs after the book changed: relabel what is open. */
  constructor(
    private readonly book: NameBook,
    private readonly changed: () => void,
  ) {
    const input = $<HTMLTextAreaElement>('names-input');
    $('names-apply').addEventListener('click', () => {
      this.add(input.value, 'pasted');
      input.value = '';
    });
    $('names-clear').addEventListener('click', () => {
      book.clear();
      this.say('names forgotten');
      changed();
    });
    const file = $<HTMLInputElement>('names-file');
    file.addEventListener('change', () => {
      const picked = file.files?.[0];
      if (picked) void this.fromFile(picked);
      file.value = '';
    });
  }

  async fromFile(file: File): Promise<void> {
    this.add(await file.text(), file.name);
  }

  /** What the names box says about the open metrics: how many the book names. */
  summarize(named: number, unnamed: number): void {
    $('names-summary').textContent = `${integer.format(this.book.size)} known${named || unnamed ? ` · ${named} of ${named + unnamed} ids named` : ''}`;
  }

  private add(text: string, from: string): void {
    try {
      const added = this.book.add(parseNames(text));
      this.say(`${from}: ${integer.format(added)} new name${added === 1 ? '' : 's'}, ${integer.format(this.book.size)} known`);
    } catch (error) {
      this.say((error as Error).message, true);
    }
    this.changed();
  }

  private say(text: string, error = false): void {
    const status = $('names-status');
    status.textContent = text;
    status.classList.toggle('error-text', error);
  }
}
