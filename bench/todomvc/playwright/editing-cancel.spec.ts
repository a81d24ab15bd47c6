import { expect, test } from '@playwright/test';
import { TODO_ITEMS, addTodos } from './todos.js';

test('editing: escape cancels, empty text removes', async ({ page }) => {
  await page.goto('/');
  await addTodos(page);
  await page.getByTestId('todo-title').nth(1).dblclick();
  await page.getByRole('textbox', { name: 'Edit' }).fill('buy some sausages');
  await page.getByRole('textbox', { name: 'Edit' }).press('Escape');
  await expect(page.getByTestId('todo-title')).toHaveText(TODO_ITEMS);
  await page.getByTestId('todo-title').nth(1).dblclick();
  await page.getByRole('textbox', { name: 'Edit' }).fill('');
  await page.getByRole('textbox', { name: 'Edit' }).press('Enter');
  await expect(page.getByTestId('todo-title')).toHaveText([TODO_ITEMS[0], TODO_ITEMS[2]]);
});
