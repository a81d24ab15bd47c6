import type { Page } from '@playwright/test';

export const TODO_ITEMS = ['buy some cheese', 'feed the cat', 'book a doctors appointment'] as const;

export async function addTodos(page: Page, items: readonly string[] = TODO_ITEMS) {
  for (const item of items) {
    await page.getByPlaceholder('What needs to be done?').fill(item);
    await page.getByPlaceholder('What needs to be done?').press('Enter');
  }
}
